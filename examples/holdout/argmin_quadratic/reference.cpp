#include <vector>

// A single scan keeping the first index of the minimum seen so far.
long cheapest(const std::vector<long>& cost) {
    if (cost.empty()) return -1;
    std::size_t best = 0;
    for (std::size_t i = 1; i < cost.size(); ++i)
        if (cost[i] < cost[best]) best = i;
    return static_cast<long>(best);
}
