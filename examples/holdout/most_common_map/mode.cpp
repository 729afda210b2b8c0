#include <map>
#include <vector>

// The value that occurs most often (the smallest one on ties); 0 for an empty input.
int most_common(const std::vector<int>& values) {
    std::map<int, int> seen;
    for (int v : values) seen[v]++;
    int best = 0, best_count = 0;
    for (const auto& kv : seen) {
        if (kv.second > best_count) {
            best = kv.first;
            best_count = kv.second;
        }
    }
    return best;
}
