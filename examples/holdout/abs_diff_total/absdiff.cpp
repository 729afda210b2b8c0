#include <vector>

// Sum of |a[i] - a[j]| over all pairs i < j (modulo 2^64).
unsigned long long total_abs_diff(const std::vector<int>& a) {
    unsigned long long total = 0;
    int n = static_cast<int>(a.size());
    for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n; j++) {
            long long d = static_cast<long long>(a[i]) - a[j];
            total += static_cast<unsigned long long>(d < 0 ? -d : d);
        }
    }
    return total;
}
