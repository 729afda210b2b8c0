#include <climits>
#include <vector>

// min |a[i] - a[j]| over i != j, as a 64-bit value; LLONG_MAX with fewer than two values.
long long smallest_gap(const std::vector<int>& a) {
    long long best = LLONG_MAX;
    for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t j = 0; j < a.size(); ++j) {
            if (i == j) continue;
            long long d = static_cast<long long>(a[i]) - a[j];
            if (d < 0) d = -d;
            if (d < best) best = d;
        }
    return best;
}
