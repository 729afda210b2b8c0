#include <vector>

// out[i] = v[0] + ... + v[i]
std::vector<long long> running_totals(const std::vector<int>& v) {
    std::vector<long long> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
        long long s = 0;
        for (std::size_t k = 0; k <= i; ++k) s += v[k];
        out[i] = s;
    }
    return out;
}
