#include <vector>

// One pass over the nonzeros, scattering into y. Each y[c] receives its terms in the same
// row-then-entry order as the column-at-a-time scan, starting from 0.0.
std::vector<double> transpose_apply(const std::vector<int>& row_start, const std::vector<int>& col,
                                    const std::vector<double>& val, const std::vector<double>& x,
                                    int cols) {
    const int rows = static_cast<int>(row_start.size()) - 1;
    std::vector<double> y(cols > 0 ? cols : 0, 0.0);
    for (int r = 0; r < rows; ++r) {
        const double xr = x[r];
        for (int k = row_start[r]; k < row_start[r + 1]; ++k) {
            const int c = col[k];
            if (c >= 0 && c < cols) y[c] += val[k] * xr;
        }
    }
    return y;
}
