#include <vector>

struct Pt {
    double x, y;
};

// Pairs i < j with squared distance below r * r; points lie in [0, 1) x [0, 1), r > 0.
long close_pairs(const std::vector<Pt>& pts, double r) {
    long count = 0;
    for (std::size_t i = 0; i < pts.size(); ++i)
        for (std::size_t j = i + 1; j < pts.size(); ++j) {
            const double dx = pts[i].x - pts[j].x, dy = pts[i].y - pts[j].y;
            if (dx * dx + dy * dy < r * r) ++count;
        }
    return count;
}
