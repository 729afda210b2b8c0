// Reference: rows outer, columns inner (storage order); the same additions per element.
#include <cstddef>
#include <vector>

double weighted_total(const std::vector<std::vector<double>>& m, double w)
{
    const std::size_t rows = m.size();
    const std::size_t cols = rows ? m[0].size() : 0;
    std::vector<double> col(cols, 0.0);
    for (std::size_t i = 0; i < rows; ++i) {
        const double* row = m[i].data();
        for (std::size_t j = 0; j < cols; ++j)
            col[j] += row[j] * w * (double)(j + 1);
    }
    double total = 0.0;
    for (std::size_t j = 0; j < cols; ++j)
        total += col[j];
    return total;
}
