// Scaling a matrix column by column: the inner loop walks across rows, against storage order.
#include <cstddef>
#include <vector>

void scale_columns(std::vector<std::vector<double>>& m, double w)
{
    const std::size_t rows = m.size();
    const std::size_t cols = rows ? m[0].size() : 0;
    for (std::size_t j = 0; j < cols; ++j)
        for (std::size_t i = 0; i < rows; ++i)
            m[i][j] *= w;
}
