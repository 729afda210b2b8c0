// Sum over windows of 8 of each window's maximum; every window is copied into a new vector.
#include <algorithm>
#include <vector>

long window_peaks(const std::vector<int>& v)
{
    long total = 0;
    for (std::size_t i = 0; i + 8 <= v.size(); ++i) {
        std::vector<int> window(v.begin() + i, v.begin() + i + 8);
        std::sort(window.begin(), window.end());
        total += window.back();
    }
    return total;
}
