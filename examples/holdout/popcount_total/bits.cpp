#include <vector>

static int bits_set(unsigned int word) {
    int c = 0;
    for (int b = 0; b < 32; ++b)
        if (word & (1u << b)) ++c;
    return c;
}

// Total number of set bits over all words.
long total_bits(const std::vector<unsigned int>& words) {
    long total = 0;
    for (unsigned int w : words) total += bits_set(w);
    return total;
}
