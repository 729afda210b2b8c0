#include <string>
#include <vector>

// Append in place (amortised growth) instead of building a new string for every piece.
std::string to_csv(const std::vector<long>& values) {
    std::string line;
    line.reserve(values.size() * 8);
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i > 0) line += ',';
        line += std::to_string(values[i]);
    }
    return line;
}
