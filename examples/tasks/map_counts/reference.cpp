// Reference: values are non-negative and bounded by the input, so a counting array suffices.
#include <algorithm>
#include <map>
#include <vector>

int most_frequent(const std::vector<int>& v)
{
    if (v.empty())
        return -1;
    const int lo = *std::min_element(v.begin(), v.end());
    const int hi = *std::max_element(v.begin(), v.end());
    if (lo < 0 || hi > 4 * (int)v.size() + 1024) {  // unusual input: keep the general path
        std::map<int, int> counts;
        for (int x : v)
            counts[x]++;
        int best = -1, best_count = 0;
        for (const auto& kv : counts)
            if (kv.second > best_count) {
                best = kv.first;
                best_count = kv.second;
            }
        return best;
    }
    std::vector<int> counts((std::size_t)hi + 1, 0);
    for (int x : v)
        counts[(std::size_t)x]++;
    int best = -1, best_count = 0;
    for (int x = lo; x <= hi; ++x)
        if (counts[(std::size_t)x] > best_count) {
            best = x;
            best_count = counts[(std::size_t)x];
        }
    return best;
}
