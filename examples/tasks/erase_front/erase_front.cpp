// Serve jobs in order: each job's cost is weighted by how many jobs still wait behind it.
#include <vector>

long long drain_queue(const std::vector<int>& jobs)
{
    std::vector<int> queue(jobs);
    long long total = 0;
    while (!queue.empty()) {
        int job = queue.front();
        queue.erase(queue.begin());
        total += (long long)job * (long long)(queue.size() + 1);
    }
    return total;
}
