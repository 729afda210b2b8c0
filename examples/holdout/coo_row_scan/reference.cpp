#include <vector>

// One pass over the triples; each row still adds its terms in triple order, so sums match.
std::vector<double> coo_times(const std::vector<int>& row, const std::vector<int>& col,
                              const std::vector<double>& val, const std::vector<double>& x,
                              int nrows) {
    std::vector<double> y(nrows, 0.0);
    for (std::size_t k = 0; k < val.size(); ++k) {
        int r = row[k];
        if (r >= 0 && r < nrows) y[r] += val[k] * x[col[k]];
    }
    return y;
}
