#include <algorithm>
#include <vector>

// After sorting, element k is the larger one in k pairs: it adds k * s[k] minus the sum of
// the values before it. Wrapping unsigned arithmetic keeps the identity modulo 2^64.
unsigned long long total_abs_diff(const std::vector<int>& a) {
    std::vector<int> s(a);
    std::sort(s.begin(), s.end());
    unsigned long long total = 0, before = 0;
    for (std::size_t k = 0; k < s.size(); ++k) {
        unsigned long long x = static_cast<unsigned long long>(static_cast<long long>(s[k]));
        total += x * k - before;
        before += x;
    }
    return total;
}
