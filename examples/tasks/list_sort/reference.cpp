// Reference: a contiguous copy sorted with std::sort.
#include <algorithm>
#include <vector>

long long ranked_sum(const std::vector<int>& v)
{
    std::vector<int> items(v);
    std::sort(items.begin(), items.end());
    long long total = 0, rank = 1;
    for (int x : items)
        total += (long long)x * rank++;
    return total;
}
