#include <vector>

// Fill forward into a vector sized once.
std::vector<double> to_kelvin(const std::vector<double>& celsius) {
    std::vector<double> out(celsius.size());
    for (std::size_t i = 0; i < celsius.size(); ++i) out[i] = celsius[i] + 273.15;
    return out;
}
