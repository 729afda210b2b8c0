#include <vector>

// Rows are independent and the count is an integer: a reduction gives the same total in any
// order. Rows shrink with i, so they are handed out dynamically.
long long count_inversions(const std::vector<int>& v) {
    const long n = static_cast<long>(v.size());
    long long total = 0;
    #pragma omp parallel for schedule(dynamic, 32) reduction(+ : total)
    for (long i = 0; i < n; ++i) {
        const int vi = v[i];
        long long row = 0;
        for (long j = i + 1; j < n; ++j) row += vi > v[j];
        total += row;
    }
    return total;
}
