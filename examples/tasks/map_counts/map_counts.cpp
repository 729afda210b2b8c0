// The most frequent value (the smallest one on ties); -1 for an empty input.
#include <map>
#include <vector>

int most_frequent(const std::vector<int>& v)
{
    std::map<int, int> counts;
    for (int x : v)
        counts[x]++;
    int best = -1, best_count = 0;
    for (const auto& kv : counts) {
        if (kv.second > best_count) {
            best = kv.first;
            best_count = kv.second;
        }
    }
    return best;
}
