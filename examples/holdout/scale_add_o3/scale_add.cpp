#include <vector>

// acc[i] += factor * inc[i] over the common length, wrapping on overflow.
void scale_add(std::vector<unsigned>& acc, const std::vector<unsigned>& inc, unsigned factor) {
    std::size_t n = acc.size() < inc.size() ? acc.size() : inc.size();
    for (std::size_t i = 0; i < n; ++i) acc[i] += factor * inc[i];
}
