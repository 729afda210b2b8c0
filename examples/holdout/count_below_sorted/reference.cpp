#include <algorithm>
#include <vector>

// The thresholds are sorted: a binary search finds the count.
std::vector<int> count_below(const std::vector<int>& thresholds, const std::vector<int>& queries) {
    std::vector<int> out;
    out.reserve(queries.size());
    for (int q : queries)
        out.push_back(static_cast<int>(
            std::lower_bound(thresholds.begin(), thresholds.end(), q) - thresholds.begin()));
    return out;
}
