#include <algorithm>
#include <vector>

// Only one order statistic is needed: nth_element is linear on average.
int upper_median(std::vector<int> values) {
    if (values.empty()) return 0;
    auto mid = values.begin() + static_cast<long>(values.size() / 2);
    std::nth_element(values.begin(), mid, values.end());
    return *mid;
}
