#include <cmath>
#include <vector>

// phi[i] = sum over j != i of 1 / sqrt((x[i] - x[j])^2 + 1).
std::vector<double> potential(const std::vector<double>& x) {
    const std::size_t n = x.size();
    std::vector<double> phi(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        double s = 0.0;
        for (std::size_t j = 0; j < n; ++j) {
            if (j == i) continue;
            const double d = x[i] - x[j];
            s += 1.0 / std::sqrt(d * d + 1.0);
        }
        phi[i] = s;
    }
    return phi;
}
