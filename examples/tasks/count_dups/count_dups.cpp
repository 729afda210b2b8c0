// How many elements have an equal element earlier in the vector.
#include <vector>

long count_dups(const std::vector<int>& v)
{
    long dups = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
            if (v[j] == v[i]) {
                ++dups;
                break;
            }
        }
    }
    return dups;
}
