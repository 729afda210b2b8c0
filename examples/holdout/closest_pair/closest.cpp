#include <cmath>
#include <limits>
#include <vector>

struct Point {
    double x;
    double y;
};

// Smallest distance between two of the points (infinity for fewer than two).
double closest_distance(const std::vector<Point>& pts) {
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < pts.size(); ++i) {
        for (std::size_t j = i + 1; j < pts.size(); ++j) {
            double dx = pts[i].x - pts[j].x;
            double dy = pts[i].y - pts[j].y;
            double d2 = dx * dx + dy * dy;
            if (d2 < best) best = d2;
        }
    }
    return std::sqrt(best);
}
