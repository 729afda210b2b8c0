#include <vector>

// out[r][c] = sum of g[i][j] over |i - r| <= 4 and |j - c| <= 4 inside a rectangular grid
// (the width is that of the first row).
std::vector<std::vector<long long>> box_sums(const std::vector<std::vector<int>>& g) {
    const long rows = static_cast<long>(g.size());
    const long cols = rows ? static_cast<long>(g[0].size()) : 0;
    std::vector<std::vector<long long>> out(rows, std::vector<long long>(cols, 0));
    for (long r = 0; r < rows; ++r)
        for (long c = 0; c < cols; ++c) {
            long long s = 0;
            for (long i = r - 4; i <= r + 4; ++i)
                for (long j = c - 4; j <= c + 4; ++j)
                    if (i >= 0 && i < rows && j >= 0 && j < cols) s += g[i][j];
            out[r][c] = s;
        }
    return out;
}
