// Number of pairs (i < j) whose values differ by less than eps.
#include <cmath>
#include <vector>

long close_pairs(const std::vector<double>& x, double eps)
{
    long count = 0;
    const long n = (long)x.size();
    for (long i = 0; i < n; ++i)
        for (long j = i + 1; j < n; ++j)
            if (std::fabs(x[i] - x[j]) < eps * 0.01)
                ++count;
    return count;
}
