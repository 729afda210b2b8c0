#include <vector>

// Sparse matrix in coordinate form (row, col, value triples) times a dense vector.
std::vector<double> coo_times(const std::vector<int>& row, const std::vector<int>& col,
                              const std::vector<double>& val, const std::vector<double>& x,
                              int nrows) {
    std::vector<double> y(nrows, 0.0);
    for (int i = 0; i < nrows; ++i) {
        double s = 0.0;
        for (std::size_t k = 0; k < val.size(); ++k)
            if (row[k] == i) s += val[k] * x[col[k]];
        y[i] = s;
    }
    return y;
}
