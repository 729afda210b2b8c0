#include <unordered_map>
#include <vector>

// One pass with a hash map of the values seen so far: each v[j] pairs with every earlier
// target - v[j].
long count_pairs(const std::vector<int>& v, int target) {
    std::unordered_map<long long, long> seen;
    seen.reserve(v.size() * 2);
    long pairs = 0;
    for (int x : v) {
        auto it = seen.find(static_cast<long long>(target) - x);
        if (it != seen.end()) pairs += it->second;
        ++seen[x];
    }
    return pairs;
}
