#include <vector>

// c = a * b for square matrices of side n stored row by row.
std::vector<double> multiply(const double* a, const double* b, int n) {
    std::vector<double> c(n > 0 ? static_cast<std::size_t>(n) * n : 0);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            double sum = 0.0;
            for (int k = 0; k < n; ++k) sum += a[i * n + k] * b[k * n + j];
            c[i * n + j] = sum;
        }
    }
    return c;
}
