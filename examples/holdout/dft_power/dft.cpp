#include <cmath>
#include <vector>

// Power spectrum |X_k|^2 of a real signal by the direct discrete Fourier transform.
std::vector<double> power_spectrum(const std::vector<double>& signal) {
    const std::size_t n = signal.size();
    std::vector<double> power(n);
    const double two_pi = 6.283185307179586;
    for (std::size_t k = 0; k < n; ++k) {
        double re = 0.0, im = 0.0;
        for (std::size_t t = 0; t < n; ++t) {
            double angle = two_pi * static_cast<double>((k * t) % n) / static_cast<double>(n);
            re += signal[t] * std::cos(angle);
            im -= signal[t] * std::sin(angle);
        }
        power[k] = re * re + im * im;
    }
    return power;
}
