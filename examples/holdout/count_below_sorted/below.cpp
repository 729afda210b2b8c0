#include <vector>

// For each query, how many thresholds (sorted ascending) are strictly below it.
std::vector<int> count_below(const std::vector<int>& thresholds, const std::vector<int>& queries) {
    std::vector<int> out;
    out.reserve(queries.size());
    for (int q : queries) {
        int c = 0;
        for (int t : thresholds) {
            if (t < q) ++c;
        }
        out.push_back(c);
    }
    return out;
}
