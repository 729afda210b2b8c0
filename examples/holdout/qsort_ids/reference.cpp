#include <algorithm>

// std::sort inlines the comparison; qsort calls through a pointer for every comparison.
void sort_ids(long* ids, int count) {
    if (count > 1) std::sort(ids, ids + count);
}
