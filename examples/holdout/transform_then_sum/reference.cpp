#include <cmath>
#include <vector>

// Fused: no temporary vector; the sum runs in the same order.
double mean_abs(const std::vector<double>& xs) {
    if (xs.empty()) return 0.0;
    double total = 0.0;
    for (double x : xs) total += std::fabs(x);
    return total / xs.size();
}
