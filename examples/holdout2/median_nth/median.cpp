#include <algorithm>
#include <vector>

// The element at position size/2 of the sorted values; 0 for none.
int upper_median(std::vector<int> values) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}
