// Weighted total of a matrix, traversed against storage order.
#include <cstddef>
#include <vector>

double weighted_total(const std::vector<std::vector<double>>& m, double w)
{
    double total = 0.0;
    const std::size_t rows = m.size();
    const std::size_t cols = rows ? m[0].size() : 0;
    for (std::size_t j = 0; j < cols; ++j)
        for (std::size_t i = 0; i < rows; ++i)
            total += m[i][j] * w * (double)(j + 1);
    return total;
}
