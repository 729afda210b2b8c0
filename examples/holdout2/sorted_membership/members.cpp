#include <algorithm>
#include <vector>

// How many of the queries occur in table, which is sorted ascending.
int count_present(const std::vector<long>& table, const std::vector<long>& queries) {
    int hits = 0;
    for (long q : queries)
        if (std::find(table.begin(), table.end(), q) != table.end()) ++hits;
    return hits;
}
