#include <algorithm>
#include <vector>

// Sort a copy and measure runs: contiguous memory instead of a node per distinct value.
// Runs come in ascending order, so the first longest run is the smallest value, as before.
int most_common(const std::vector<int>& values) {
    std::vector<int> s(values);
    std::sort(s.begin(), s.end());
    int best = 0;
    std::size_t best_count = 0;
    for (std::size_t i = 0; i < s.size();) {
        std::size_t j = i + 1;
        while (j < s.size() && s[j] == s[i]) ++j;
        if (j - i > best_count) {
            best = s[i];
            best_count = j - i;
        }
        i = j;
    }
    return best;
}
