#include <vector>

// One Game of Life generation on a grid of rows (nonzero = alive); cells outside are dead.
// Rows may differ in length.
std::vector<std::vector<int>> life_step(const std::vector<std::vector<int>>& grid) {
    std::vector<std::vector<int>> next;
    for (std::size_t r = 0; r < grid.size(); ++r) {
        std::vector<int> row;
        for (std::size_t c = 0; c < grid[r].size(); ++c) {
            std::vector<int> around;
            for (int dr = -1; dr <= 1; ++dr) {
                for (int dc = -1; dc <= 1; ++dc) {
                    if (dr == 0 && dc == 0) continue;
                    long rr = static_cast<long>(r) + dr, cc = static_cast<long>(c) + dc;
                    if (rr < 0 || rr >= static_cast<long>(grid.size())) continue;
                    if (cc < 0 || cc >= static_cast<long>(grid[rr].size())) continue;
                    around.push_back(grid[rr][cc] != 0 ? 1 : 0);
                }
            }
            int live = 0;
            for (int a : around) live += a;
            const bool alive = grid[r][c] != 0;
            row.push_back((live == 3 || (alive && live == 2)) ? 1 : 0);
        }
        next.push_back(row);
    }
    return next;
}
