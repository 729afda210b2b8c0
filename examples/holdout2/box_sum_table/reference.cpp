#include <vector>

// A summed-area table makes each box four lookups. Integer sums are exact in any order.
std::vector<std::vector<long long>> box_sums(const std::vector<std::vector<int>>& g) {
    const long rows = static_cast<long>(g.size());
    const long cols = rows ? static_cast<long>(g[0].size()) : 0;
    std::vector<std::vector<long long>> out(rows, std::vector<long long>(cols, 0));
    // sat[(i + 1) * (cols + 1) + (j + 1)] = sum of g over [0, i] x [0, j].
    std::vector<long long> sat(static_cast<std::size_t>((rows + 1) * (cols + 1)), 0);
    for (long i = 0; i < rows; ++i) {
        long long line = 0;
        for (long j = 0; j < cols; ++j) {
            line += g[i][j];
            sat[(i + 1) * (cols + 1) + j + 1] = sat[i * (cols + 1) + j + 1] + line;
        }
    }
    auto at = [&](long i, long j) { return sat[i * (cols + 1) + j]; };
    for (long r = 0; r < rows; ++r) {
        const long r0 = r - 4 < 0 ? 0 : r - 4, r1 = r + 5 > rows ? rows : r + 5;
        for (long c = 0; c < cols; ++c) {
            const long c0 = c - 4 < 0 ? 0 : c - 4, c1 = c + 5 > cols ? cols : c + 5;
            out[r][c] = at(r1, c1) - at(r0, c1) - at(r1, c0) + at(r0, c0);
        }
    }
    return out;
}
