// Reference: one pass with a hash set, O(n) expected.
#include <unordered_set>
#include <vector>

long count_dups(const std::vector<int>& v)
{
    std::unordered_set<int> seen;
    seen.reserve(v.size() * 2);
    long dups = 0;
    for (int x : v) {
        if (!seen.insert(x).second)
            ++dups;
    }
    return dups;
}
