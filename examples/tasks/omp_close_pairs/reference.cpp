// Reference: the outer loop across threads (dynamic schedule: rows shrink), a sum reduction.
#include <cmath>
#include <vector>

long close_pairs(const std::vector<double>& x, double eps)
{
    long count = 0;
    const long n = (long)x.size();
    const double limit = eps * 0.01;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : count)
    for (long i = 0; i < n; ++i)
        for (long j = i + 1; j < n; ++j)
            count += std::fabs(x[i] - x[j]) < limit;
    return count;
}
