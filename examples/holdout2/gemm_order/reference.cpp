#include <vector>

// i-k-j order: the inner loop walks rows of b and c contiguously. Each c[i][j] still adds its
// products for k = 0, 1, ... in the same order, so results are unchanged.
std::vector<double> multiply(const double* a, const double* b, int n) {
    std::vector<double> c(n > 0 ? static_cast<std::size_t>(n) * n : 0, 0.0);
    for (int i = 0; i < n; ++i) {
        double* ci = c.data() + static_cast<std::size_t>(i) * n;
        for (int k = 0; k < n; ++k) {
            const double aik = a[i * n + k];
            const double* bk = b + static_cast<std::size_t>(k) * n;
            for (int j = 0; j < n; ++j) ci[j] += aik * bk[j];
        }
    }
    return c;
}
