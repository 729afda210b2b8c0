// c = a * b for n-by-n row-major matrices stored in vectors.
#include <vector>

void multiply(const std::vector<double>& a, const std::vector<double>& b,
              std::vector<double>& c, int n)
{
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double s = 0.0;
            for (int k = 0; k < n; ++k)
                s += a[i * n + k] * b[k * n + j];
            c[i * n + j] = s;
        }
}
