#include <vector>

// Position of the first element equal to key, or -1.
int first_position(const std::vector<int>& items, int key) {
    int pos = -1;
    int i = static_cast<int>(items.size()) - 1;
    while (i >= 0) {
        if (items[i] == key) pos = i;
        --i;
    }
    return pos;
}
