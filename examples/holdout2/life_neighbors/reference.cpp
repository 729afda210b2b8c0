#include <vector>

// Counts neighbours directly, with no per-cell vector, and sizes the result once. The bounds
// tests stay (rows may differ in length) but are hoisted to one per neighbouring row.
std::vector<std::vector<int>> life_step(const std::vector<std::vector<int>>& grid) {
    const long rows = static_cast<long>(grid.size());
    std::vector<std::vector<int>> next(grid.size());
    for (long r = 0; r < rows; ++r) {
        const long cols = static_cast<long>(grid[r].size());
        std::vector<int>& out = next[r];
        out.resize(grid[r].size());
        for (long c = 0; c < cols; ++c) {
            int live = 0;
            for (long rr = r - 1; rr <= r + 1; ++rr) {
                if (rr < 0 || rr >= rows) continue;
                const std::vector<int>& g = grid[rr];
                const long w = static_cast<long>(g.size());
                for (long cc = c - 1; cc <= c + 1; ++cc) {
                    if (cc < 0 || cc >= w || (rr == r && cc == c)) continue;
                    live += g[cc] != 0;
                }
            }
            out[c] = (live == 3 || (grid[r][c] != 0 && live == 2)) ? 1 : 0;
        }
    }
    return next;
}
