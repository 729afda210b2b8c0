#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

// sqrt is monotonic: compare squared norms and take one root at the end.
double farthest(const std::vector<std::array<double, 3>>& pts) {
    double best = 0.0;
    for (const auto& p : pts) best = std::max(best, p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    return std::sqrt(best);
}
