#include <vector>

// Number of pairs i < j with v[i] > v[j].
long long count_inversions(const std::vector<int>& v) {
    long long total = 0;
    for (std::size_t i = 0; i < v.size(); ++i)
        for (std::size_t j = i + 1; j < v.size(); ++j)
            if (v[i] > v[j]) ++total;
    return total;
}
