// How many elements of a occur in b: std::find over b for every element of a.
#include <algorithm>
#include <vector>

int count_common(const std::vector<int>& a, const std::vector<int>& b)
{
    int common = 0;
    for (int x : a) {
        if (std::find(b.begin(), b.end(), x) != b.end())
            ++common;
    }
    return common;
}
