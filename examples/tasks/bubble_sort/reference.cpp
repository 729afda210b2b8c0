// Reference: the standard library's introsort.
#include <algorithm>
#include <vector>

void sort_values(std::vector<int>& v)
{
    std::sort(v.begin(), v.end());
}
