// Reference: the same loop as an OpenMP parallel reduction.
#include <cmath>
#include <vector>

double sum_of_roots(const std::vector<double>& v)
{
    double acc = 0.0;
    const long n = (long)v.size();
#pragma omp parallel for reduction(+ : acc) schedule(static)
    for (long i = 0; i < n; ++i)
        acc += std::sqrt(std::fabs(v[i])) * std::sin(v[i]);
    return acc;
}
