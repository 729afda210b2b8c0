// series_stats N M REPEAT: statistics of N generated readings (M of them bucketed and
// compared pairwise), the moment computed REPEAT times over shifted centres.
#include <cstdio>
#include <cstdlib>

#include "stats.h"

int main(int argc, char** argv)
{
    std::size_t n = argc > 1 ? (std::size_t)std::atol(argv[1]) : 1000000;
    std::size_t m = argc > 2 ? (std::size_t)std::atol(argv[2]) : 5000;
    int repeat = argc > 3 ? std::atoi(argv[3]) : 4;
    std::vector<double> readings = make_readings(n, 12345u);
    double centre = mean(readings);
    double moment = 0.0;
    for (int r = 0; r < repeat; ++r)
        moment += third_moment(readings, centre + 0.01 * r);
    std::vector<double> head(readings.begin(), readings.begin() + (long)(m < n ? m : n));
    long pairs = count_equal_pairs(bucket_readings(head, 1000));
    std::printf("mean %.6f\nthird moment %.6e\nequal pairs %ld\n", centre, moment, pairs);
    return 0;
}
