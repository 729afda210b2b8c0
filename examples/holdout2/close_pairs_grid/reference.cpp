#include <vector>

struct Pt {
    double x, y;
};

// Bucket points into a grid of cells of side at least r: a close pair lies in the same or an
// adjacent cell, so only those are compared. The distance test is the same expression, so
// the same pairs count.
long close_pairs(const std::vector<Pt>& pts, double r) {
    int cells = static_cast<int>(1.0 / r);
    if (cells < 1) cells = 1;
    if (cells > 2048) cells = 2048;
    auto cell_of = [cells](double v) {
        int c = static_cast<int>(v * cells);
        return c < 0 ? 0 : (c >= cells ? cells - 1 : c);
    };
    // Counting sort of point indices by cell (row-major).
    std::vector<int> start(static_cast<std::size_t>(cells) * cells + 1, 0);
    std::vector<int> cell(pts.size());
    for (std::size_t i = 0; i < pts.size(); ++i) {
        cell[i] = cell_of(pts[i].y) * cells + cell_of(pts[i].x);
        ++start[cell[i] + 1];
    }
    for (std::size_t c = 1; c < start.size(); ++c) start[c] += start[c - 1];
    std::vector<int> order(pts.size());
    std::vector<int> fill(start.begin(), start.end() - 1);
    for (std::size_t i = 0; i < pts.size(); ++i) order[fill[cell[i]]++] = static_cast<int>(i);
    long count = 0;
    for (std::size_t i = 0; i < pts.size(); ++i) {
        const int cy = cell[i] / cells, cx = cell[i] % cells;
        for (int ny = cy - 1; ny <= cy + 1; ++ny) {
            if (ny < 0 || ny >= cells) continue;
            for (int nx = cx - 1; nx <= cx + 1; ++nx) {
                if (nx < 0 || nx >= cells) continue;
                const int c = ny * cells + nx;
                for (int k = start[c]; k < start[c + 1]; ++k) {
                    const std::size_t j = static_cast<std::size_t>(order[k]);
                    if (j <= i) continue;  // each pair once, as i < j
                    const double dx = pts[i].x - pts[j].x, dy = pts[i].y - pts[j].y;
                    if (dx * dx + dy * dy < r * r) ++count;
                }
            }
        }
    }
    return count;
}
