#include <vector>

// An inclusive scan: each total extends the previous one.
std::vector<long long> running_totals(const std::vector<int>& v) {
    std::vector<long long> out(v.size());
    long long s = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
        s += v[i];
        out[i] = s;
    }
    return out;
}
