#include <vector>

// The first index at which the running total of costs exceeds budget; -1 if it never does.
long first_over(const std::vector<int>& costs, long long budget) {
    long found = -1;
    long long total = 0;
    for (std::size_t i = 0; i < costs.size(); ++i) {
        total += costs[i];
        if (total > budget && found < 0) found = static_cast<long>(i);
    }
    return found;
}
