// A reduction whose iterations are independent.
#include <cmath>
#include <vector>

double sum_of_roots(const std::vector<double>& v)
{
    double acc = 0.0;
    for (long i = 0; i < (long)v.size(); ++i)
        acc += std::sqrt(std::fabs(v[i])) * std::sin(v[i]);
    return acc;
}
