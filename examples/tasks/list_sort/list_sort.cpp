// Sum of value * rank after sorting; the values go through a std::list.
#include <list>
#include <vector>

long long ranked_sum(const std::vector<int>& v)
{
    std::list<int> items;
    for (int x : v)
        items.push_back(x);
    items.sort();
    long long total = 0, rank = 1;
    for (int x : items)
        total += (long long)x * rank++;
    return total;
}
