#include <vector>

// The divisor is loop-invariant: one division up front, a multiplication per element.
std::vector<double> as_percent(const std::vector<long>& parts, long whole) {
    std::vector<double> out(parts.size());
    const double scale = 100.0 / static_cast<double>(whole);
    for (std::size_t i = 0; i < parts.size(); ++i)
        out[i] = static_cast<double>(parts[i]) * scale;
    return out;
}
