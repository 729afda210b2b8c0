#include <vector>

// Row by row: A is read contiguously, and each row sums in the same order as before.
std::vector<double> matvec(const double* a, const double* x, int n) {
    std::vector<double> y(n > 0 ? n : 0, 0.0);
    for (int i = 0; i < n; ++i) {
        const double* row = a + static_cast<long>(i) * n;
        double acc = 0.0;
        for (int j = 0; j < n; ++j) acc += row[j] * x[j];
        y[i] = acc;
    }
    return y;
}
