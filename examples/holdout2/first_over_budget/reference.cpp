#include <vector>

// The answer is fixed at the first crossing: stop there.
long first_over(const std::vector<int>& costs, long long budget) {
    long long total = 0;
    for (std::size_t i = 0; i < costs.size(); ++i) {
        total += costs[i];
        if (total > budget) return static_cast<long>(i);
    }
    return -1;
}
