#include <algorithm>
#include <utility>
#include <vector>

// std::stable_sort: O(n log n) and, like insertion sort, stable for equal keys.
void sort_by_key(std::vector<std::pair<int, int>>& items) {
    std::stable_sort(items.begin(), items.end(),
                     [](const std::pair<int, int>& a, const std::pair<int, int>& b) {
                         return a.first < b.first;
                     });
}
