#include <vector>

// Scan forward and stop at the first hit.
int first_position(const std::vector<int>& items, int key) {
    const int n = static_cast<int>(items.size());
    for (int i = 0; i < n; ++i)
        if (items[i] == key) return i;
    return -1;
}
