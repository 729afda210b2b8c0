#include <algorithm>
#include <vector>

// 32x32 tiles: both the rows read and the rows written stay in cache within a tile.
std::vector<std::vector<float>> transpose(const std::vector<std::vector<float>>& m) {
    if (m.empty()) return {};
    const std::size_t rows = m.size(), cols = m[0].size();
    std::vector<std::vector<float>> t(cols, std::vector<float>(rows));
    const std::size_t B = 32;
    for (std::size_t r0 = 0; r0 < rows; r0 += B) {
        const std::size_t r1 = std::min(rows, r0 + B);
        for (std::size_t c0 = 0; c0 < cols; c0 += B) {
            const std::size_t c1 = std::min(cols, c0 + B);
            for (std::size_t r = r0; r < r1; ++r) {
                const float* src = m[r].data();
                for (std::size_t c = c0; c < c1; ++c) t[c][r] = src[c];
            }
        }
    }
    return t;
}
