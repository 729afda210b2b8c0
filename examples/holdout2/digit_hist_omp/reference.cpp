#include <vector>

// Each thread fills a private histogram; the integer counts are merged once at the end.
std::vector<long> digit_sum_histogram(const std::vector<long long>& values) {
    std::vector<long> counts(200, 0);
    const long n = static_cast<long>(values.size());
    #pragma omp parallel
    {
        long local[200] = {0};
        #pragma omp for schedule(static) nowait
        for (long i = 0; i < n; ++i) {
            const long long v = values[i];
            unsigned long long u = v < 0 ? 0ULL - static_cast<unsigned long long>(v)
                                         : static_cast<unsigned long long>(v);
            int s = 0;
            while (u != 0) {
                s += static_cast<int>(u % 10);
                u /= 10;
            }
            local[s]++;
        }
        #pragma omp critical
        for (int s = 0; s < 200; ++s) counts[s] += local[s];
    }
    return counts;
}
