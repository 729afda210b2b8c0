// Slow: sums the matrix column by column (`m[j][i]` with `j` the inner loop) against the
// row-major storage order, squares with pow(x, 2), divides by a loop-invariant `scale`
// on every element, and leaves independent rows to a single core.
#include <cmath>
#include <vector>

double column_energy(const std::vector<std::vector<double>> &m, int n, double scale) {
    double total = 0.0;
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            total += pow(m[j][i], 2) / scale;
        }
    }
    return total;
}

void row_norms(const double *a, double *out, int n) {
    for (int i = 0; i < n; ++i) {
        double s = 0.0;
        for (int j = 0; j < n; ++j) {
            s += a[i * n + j] * a[i * n + j];
        }
        out[i] = sqrt(s);
    }
}
