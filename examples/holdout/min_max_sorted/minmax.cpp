#include <algorithm>
#include <climits>
#include <utility>
#include <vector>

// Smallest and largest reading; (INT_MAX, INT_MIN), the empty range, when there are none.
std::pair<int, int> min_and_max(const std::vector<int>& readings) {
    if (readings.empty()) return {INT_MAX, INT_MIN};
    std::vector<int> copy = readings;
    std::sort(copy.begin(), copy.end());
    return {copy.front(), copy.back()};
}
