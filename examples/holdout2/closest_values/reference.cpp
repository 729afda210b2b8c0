#include <algorithm>
#include <climits>
#include <vector>

// After sorting, the closest pair is adjacent: O(n log n) instead of all pairs.
long long smallest_gap(const std::vector<int>& a) {
    std::vector<int> s(a);
    std::sort(s.begin(), s.end());
    long long best = LLONG_MAX;
    for (std::size_t i = 1; i < s.size(); ++i) {
        const long long d = static_cast<long long>(s[i]) - s[i - 1];
        if (d < best) best = d;
    }
    return best;
}
