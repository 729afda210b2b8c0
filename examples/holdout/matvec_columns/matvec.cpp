#include <vector>

// y = A x for a dense n-by-n matrix stored row by row, accumulated column by column.
std::vector<double> matvec(const double* a, const double* x, int n) {
    std::vector<double> y(n > 0 ? n : 0, 0.0);
    for (int j = 0; j < n; ++j) {
        for (int i = 0; i < n; ++i) {
            y[i] += a[i * n + j] * x[j];
        }
    }
    return y;
}
