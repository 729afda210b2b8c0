#include <algorithm>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <vector>

// Sum of w[i] * |x[i] - 7| over the common length, in wrapping 64-bit arithmetic.
unsigned long long weighted_sum(const std::vector<int>& w, const std::vector<int>& x) {
    std::size_t n = std::min(w.size(), x.size());
    return std::inner_product(w.begin(), w.begin() + n, x.begin(), 0ULL,
                              std::plus<unsigned long long>(), [](int a, int b) {
                                  return static_cast<unsigned long long>(a) *
                                         static_cast<unsigned long long>(std::llabs(b - 7LL));
                              });
}
