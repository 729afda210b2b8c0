#include <cmath>
#include <vector>

// The angles only take n distinct values: tabulate cos and sin once (same expression, so the
// same values), then the inner loop is multiply-adds with an index that wraps.
std::vector<double> power_spectrum(const std::vector<double>& signal) {
    const std::size_t n = signal.size();
    std::vector<double> power(n);
    const double two_pi = 6.283185307179586;
    std::vector<double> c(n), s(n);
    for (std::size_t m = 0; m < n; ++m) {
        double angle = two_pi * static_cast<double>(m) / static_cast<double>(n);
        c[m] = std::cos(angle);
        s[m] = std::sin(angle);
    }
    for (std::size_t k = 0; k < n; ++k) {
        double re = 0.0, im = 0.0;
        std::size_t m = 0;
        for (std::size_t t = 0; t < n; ++t) {
            re += signal[t] * c[m];
            im -= signal[t] * s[m];
            m += k;
            if (m >= n) m -= n;
        }
        power[k] = re * re + im * im;
    }
    return power;
}
