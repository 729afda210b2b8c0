#include <utility>
#include <vector>

// Sorts items by .first ascending; items with equal keys keep their order.
void sort_by_key(std::vector<std::pair<int, int>>& items) {
    for (std::size_t i = 1; i < items.size(); ++i) {
        std::pair<int, int> cur = items[i];
        std::size_t j = i;
        while (j > 0 && items[j - 1].first > cur.first) {
            items[j] = items[j - 1];
            --j;
        }
        items[j] = cur;
    }
}
