#include <vector>

// Number of index pairs i < j with v[i] + v[j] == target.
long count_pairs(const std::vector<int>& v, int target) {
    long pairs = 0;
    for (std::size_t i = 0; i < v.size(); ++i)
        for (std::size_t j = i + 1; j < v.size(); ++j)
            if (static_cast<long long>(v[i]) + v[j] == target) ++pairs;
    return pairs;
}
