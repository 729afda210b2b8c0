#include <vector>

// Celsius readings to kelvin, same order.
std::vector<double> to_kelvin(const std::vector<double>& celsius) {
    std::vector<double> out;
    for (auto it = celsius.rbegin(); it != celsius.rend(); ++it)
        out.insert(out.begin(), *it + 273.15);
    return out;
}
