// Reference: no copy, no allocation; the maximum is found in place.
#include <algorithm>
#include <vector>

long window_peaks(const std::vector<int>& v)
{
    long total = 0;
    for (std::size_t i = 0; i + 8 <= v.size(); ++i)
        total += *std::max_element(v.begin() + i, v.begin() + i + 8);
    return total;
}
