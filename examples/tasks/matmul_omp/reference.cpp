// Reference: rows of c split across threads, i-k-j order inside each row.
#include <vector>

void multiply(const std::vector<double>& a, const std::vector<double>& b,
              std::vector<double>& c, int n)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i) {
        double* crow = c.data() + (long)i * n;
        for (int j = 0; j < n; ++j)
            crow[j] = 0.0;
        for (int k = 0; k < n; ++k) {
            const double aik = a[i * n + k];
            const double* brow = b.data() + (long)k * n;
            for (int j = 0; j < n; ++j)
                crow[j] += aik * brow[j];
        }
    }
}
