#include <vector>

// At -O2 GCC's cheap vectoriser leaves this loop scalar: it would need a runtime overlap
// check and an epilogue. Asking for -O3 on this one function vectorises it with both.
__attribute__((optimize("O3")))
void scale_add(std::vector<unsigned>& acc, const std::vector<unsigned>& inc, unsigned factor) {
    std::size_t n = acc.size() < inc.size() ? acc.size() : inc.size();
    for (std::size_t i = 0; i < n; ++i) acc[i] += factor * inc[i];
}
