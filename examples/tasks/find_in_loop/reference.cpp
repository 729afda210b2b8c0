// Reference: sort a copy of b once, then binary-search it.
#include <algorithm>
#include <vector>

int count_common(const std::vector<int>& a, const std::vector<int>& b)
{
    std::vector<int> sorted(b);
    std::sort(sorted.begin(), sorted.end());
    int common = 0;
    for (int x : a) {
        if (std::binary_search(sorted.begin(), sorted.end(), x))
            ++common;
    }
    return common;
}
