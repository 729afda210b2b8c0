// Reference: walk the jobs with an index; nothing is moved.
#include <vector>

long long drain_queue(const std::vector<int>& jobs)
{
    long long total = 0;
    const std::size_t n = jobs.size();
    for (std::size_t i = 0; i < n; ++i)
        total += (long long)jobs[i] * (long long)(n - i);
    return total;
}
