#include <algorithm>
#include <vector>

// The table is sorted: a binary search per query, O(log n) instead of O(n).
int count_present(const std::vector<long>& table, const std::vector<long>& queries) {
    int hits = 0;
    for (long q : queries)
        if (std::binary_search(table.begin(), table.end(), q)) ++hits;
    return hits;
}
