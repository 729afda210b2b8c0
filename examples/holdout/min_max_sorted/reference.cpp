#include <climits>
#include <utility>
#include <vector>

// One pass, no copy and no sort.
std::pair<int, int> min_and_max(const std::vector<int>& readings) {
    if (readings.empty()) return {INT_MAX, INT_MIN};
    int lo = readings[0], hi = readings[0];
    for (int r : readings) {
        lo = r < lo ? r : lo;
        hi = r > hi ? r : hi;
    }
    return {lo, hi};
}
