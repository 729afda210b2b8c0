#include <cmath>
#include <vector>

// Histogram of values into 64 equal buckets over [0, 1); values outside go to the end buckets.
std::vector<long> bucket_counts(const std::vector<double>& values) {
    std::vector<long> hist(64, 0);
    for (double v : values) {
        double scaled = std::floor(v * 64.0);
        int b;
        if (!(scaled >= 0.0)) b = 0;
        else if (scaled >= 63.0) b = 63;
        else b = static_cast<int>(scaled);
        hist[b] += 1;
    }
    return hist;
}
