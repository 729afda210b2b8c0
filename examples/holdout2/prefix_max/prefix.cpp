#include <vector>

// out[i] = the largest of v[0..i].
std::vector<int> running_max(const std::vector<int>& v) {
    std::vector<int> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
        int m = v[0];
        for (std::size_t k = 1; k <= i; ++k)
            if (v[k] > m) m = v[k];
        out[i] = m;
    }
    return out;
}
