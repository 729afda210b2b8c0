#include <cstdlib>

static int compare_ids(const void* a, const void* b) {
    long x = *static_cast<const long*>(a);
    long y = *static_cast<const long*>(b);
    return (x > y) - (x < y);
}

// Sort the ids ascending.
void sort_ids(long* ids, int count) {
    if (count > 1) std::qsort(ids, static_cast<std::size_t>(count), sizeof(long), compare_ids);
}
