// The project's tests: each function against values worked out by hand.
#include <cmath>
#include <cstdio>

#include "stats.h"

static int failures = 0;

static void check(bool ok, const char* what)
{
    if (!ok) {
        std::printf("FAIL %s\n", what);
        ++failures;
    }
}

int main()
{
    std::vector<double> v = {1.0, 2.0, 3.0, -1.5};
    check(std::fabs(mean(v) - 1.125) < 1e-12, "mean");
    // (1-1)^3 + (2-1)^3 + (3-1)^3 + (-1.5-1)^3 = 0 + 1 + 8 - 15.625
    check(std::fabs(third_moment(v, 1.0) - (-6.625)) < 1e-9, "third_moment");
    check(third_moment({}, 0.0) == 0.0, "third_moment of nothing");
    check(count_equal_pairs({3, 1, 3, 3, 2, 1}) == 4, "count_equal_pairs");
    check(count_equal_pairs({}) == 0, "count_equal_pairs of nothing");
    std::vector<int> b = bucket_readings({-5.0, 0.0, 4.99}, 10);
    check(b[0] == 0 && b[1] == 5 && b[2] == 9, "bucket_readings");
    std::vector<double> r = make_readings(1000, 7u);
    bool in_range = true;
    for (double x : r)
        in_range = in_range && x >= -5.0 && x < 5.0;
    check(r.size() == 1000 && in_range, "make_readings range");
    if (failures == 0)
        std::printf("ok: all stats tests passed\n");
    return failures == 0 ? 0 : 1;
}
