#include <algorithm>
#include <cstdlib>
#include <vector>

// Wrapping unsigned addition is associative: an OpenMP reduction gives the same total.
unsigned long long weighted_sum(const std::vector<int>& w, const std::vector<int>& x) {
    const long n = static_cast<long>(std::min(w.size(), x.size()));
    const int* a = w.data();
    const int* b = x.data();
    unsigned long long total = 0;
    #pragma omp parallel for reduction(+:total) schedule(static)
    for (long i = 0; i < n; ++i)
        total += static_cast<unsigned long long>(a[i]) *
                 static_cast<unsigned long long>(std::llabs(b[i] - 7LL));
    return total;
}
