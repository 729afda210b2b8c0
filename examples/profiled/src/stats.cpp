// Statistics over a generated series of readings.
#include "stats.h"

#include <cmath>

std::vector<double> make_readings(std::size_t n, std::uint32_t seed)
{
    // A linear congruential generator: the same series on every machine.
    std::vector<double> v(n);
    std::uint32_t x = seed;
    for (std::size_t i = 0; i < n; ++i) {
        x = x * 1664525u + 1013904223u;
        v[i] = (double)(x >> 8) / (double)(1u << 24) * 10.0 - 5.0;
    }
    return v;
}

std::vector<int> bucket_readings(const std::vector<double>& v, int buckets)
{
    std::vector<int> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
        out[i] = (int)std::floor((v[i] + 5.0) / 10.0 * buckets);
    return out;
}

double mean(const std::vector<double>& v)
{
    double s = 0.0;
    for (std::size_t i = 0; i < v.size(); ++i)
        s += v[i];
    return v.empty() ? 0.0 : s / (double)v.size();
}

// Skewness numerator: the sum of cubed deviations from the centre.
double third_moment(const std::vector<double>& v, double centre)
{
    double acc = 0.0;
    for (std::size_t i = 0; i < v.size(); ++i)
        acc += std::pow(v[i] - centre, 3);
    return acc;
}

// How many pairs (i < j) of values are equal: every pair is compared.
long count_equal_pairs(const std::vector<int>& v)
{
    long count = 0;
    for (std::size_t i = 0; i < v.size(); ++i)
        for (std::size_t j = i + 1; j < v.size(); ++j)
            if (v[i] == v[j])
                ++count;
    return count;
}
