#include <vector>

// y = transpose(A) * x, where A has `rows` rows and `cols` columns in CSR form
// (row_start has rows + 1 entries).
std::vector<double> transpose_apply(const std::vector<int>& row_start, const std::vector<int>& col,
                                    const std::vector<double>& val, const std::vector<double>& x,
                                    int cols) {
    const int rows = static_cast<int>(row_start.size()) - 1;
    std::vector<double> y(cols, 0.0);
    for (int c = 0; c < cols; ++c) {
        double acc = 0.0;
        for (int r = 0; r < rows; ++r)
            for (int k = row_start[r]; k < row_start[r + 1]; ++k)
                if (col[k] == c) acc += val[k] * x[r];
        y[c] = acc;
    }
    return y;
}
