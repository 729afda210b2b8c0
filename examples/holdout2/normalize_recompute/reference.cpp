#include <cmath>
#include <vector>

static double norm(const std::vector<double>& v) {
    double s = 0.0;
    for (double x : v) s += x * x;
    return std::sqrt(s);
}

// The norm does not change inside the loop: compute it once (same sum, same order).
std::vector<double> normalized(const std::vector<double>& v) {
    std::vector<double> out(v.size());
    const double len = norm(v);
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = len == 0.0 ? v[i] : v[i] / len;
    return out;
}
