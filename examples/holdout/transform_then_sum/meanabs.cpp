#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

// Mean absolute deviation from zero; 0 for no values.
double mean_abs(const std::vector<double>& xs) {
    if (xs.empty()) return 0.0;
    std::vector<double> mags(xs.size());
    std::transform(xs.begin(), xs.end(), mags.begin(), [](double x) { return std::fabs(x); });
    double total = std::accumulate(mags.begin(), mags.end(), 0.0);
    return total / xs.size();
}
