#include <vector>

// An inclusive scan with max: each prefix extends the previous one by one element.
std::vector<int> running_max(const std::vector<int>& v) {
    std::vector<int> out(v.size());
    if (v.empty()) return out;
    int m = v[0];
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (v[i] > m) m = v[i];
        out[i] = m;
    }
    return out;
}
