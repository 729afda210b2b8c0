#include <vector>

// Transpose of a rectangular matrix given as rows.
std::vector<std::vector<float>> transpose(const std::vector<std::vector<float>>& m) {
    if (m.empty()) return {};
    const std::size_t rows = m.size(), cols = m[0].size();
    std::vector<std::vector<float>> t(cols, std::vector<float>(rows));
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c)
            t[c][r] = m[r][c];
    return t;
}
