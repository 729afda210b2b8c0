#include <vector>

// counts[s] = how many values have decimal digit sum s (of their absolute value): at most 171 for 64-bit values.
std::vector<long> digit_sum_histogram(const std::vector<long long>& values) {
    std::vector<long> counts(200, 0);
    for (long long v : values) {
        unsigned long long u = v < 0 ? 0ULL - static_cast<unsigned long long>(v)
                                     : static_cast<unsigned long long>(v);
        int s = 0;
        while (u != 0) {
            s += static_cast<int>(u % 10);
            u /= 10;
        }
        counts[s]++;
    }
    return counts;
}
