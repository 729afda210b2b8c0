#include <algorithm>
#include <vector>

// The library's O(n log n) sort.
void sort_scores(std::vector<int>& scores) {
    std::sort(scores.begin(), scores.end());
}
