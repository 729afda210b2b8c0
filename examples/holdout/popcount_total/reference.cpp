#include <vector>

// The compiler's population-count builtin (one instruction where the target has it).
long total_bits(const std::vector<unsigned int>& words) {
    long total = 0;
    for (unsigned int w : words) total += __builtin_popcount(w);
    return total;
}
