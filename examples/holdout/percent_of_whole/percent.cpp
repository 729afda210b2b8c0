#include <vector>

// Each part as a percentage of the whole.
std::vector<double> as_percent(const std::vector<long>& parts, long whole) {
    std::vector<double> out(parts.size());
    for (std::size_t i = 0; i < parts.size(); ++i)
        out[i] = parts[i] * 100.0 / whole;
    return out;
}
