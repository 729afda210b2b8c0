#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

struct Point {
    double x;
    double y;
};

// Sort by x and sweep: a pair further apart in x than the best distance so far cannot win.
// Points with a non-finite coordinate never give a finite distance, so they are left out
// (which also keeps the sort's comparisons well defined).
double closest_distance(const std::vector<Point>& pts) {
    std::vector<Point> p;
    p.reserve(pts.size());
    for (const Point& q : pts)
        if (std::isfinite(q.x) && std::isfinite(q.y)) p.push_back(q);
    std::sort(p.begin(), p.end(), [](const Point& a, const Point& b) { return a.x < b.x; });
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < p.size(); ++i) {
        for (std::size_t j = i + 1; j < p.size(); ++j) {
            double dx = p[j].x - p[i].x;
            if (dx * dx >= best) break;
            double dy = p[j].y - p[i].y;
            double d2 = dx * dx + dy * dy;
            if (d2 < best) best = d2;
        }
    }
    return std::sqrt(best);
}
