#include <cmath>
#include <vector>

// Each thread fills a private histogram; the private ones are added at the end (exact: integers).
std::vector<long> bucket_counts(const std::vector<double>& values) {
    std::vector<long> hist(64, 0);
    const long n = static_cast<long>(values.size());
    const double* data = values.data();
    #pragma omp parallel
    {
        long local[64] = {0};
        #pragma omp for schedule(static) nowait
        for (long i = 0; i < n; ++i) {
            double scaled = std::floor(data[i] * 64.0);
            int b;
            if (!(scaled >= 0.0)) b = 0;
            else if (scaled >= 63.0) b = 63;
            else b = static_cast<int>(scaled);
            local[b] += 1;
        }
        #pragma omp critical
        for (int b = 0; b < 64; ++b) hist[b] += local[b];
    }
    return hist;
}
