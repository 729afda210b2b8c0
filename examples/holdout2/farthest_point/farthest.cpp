#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

// The largest Euclidean norm among the points (0 for none).
double farthest(const std::vector<std::array<double, 3>>& pts) {
    double best = 0.0;
    for (const auto& p : pts)
        best = std::max(best, std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]));
    return best;
}
