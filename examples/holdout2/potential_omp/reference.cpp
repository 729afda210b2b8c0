#include <cmath>
#include <vector>

// Each phi[i] is summed by one thread in the original order: rows split across threads.
std::vector<double> potential(const std::vector<double>& x) {
    const long n = static_cast<long>(x.size());
    std::vector<double> phi(static_cast<std::size_t>(n), 0.0);
    #pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i) {
        double s = 0.0;
        for (long j = 0; j < n; ++j) {
            if (j == i) continue;
            const double d = x[i] - x[j];
            s += 1.0 / std::sqrt(d * d + 1.0);
        }
        phi[i] = s;
    }
    return phi;
}
