#include <algorithm>
#include <vector>

// Median of each window of five consecutive values (n - 4 results).
std::vector<double> median5(const std::vector<double>& v) {
    std::vector<double> out;
    for (std::size_t i = 0; i + 5 <= v.size(); ++i) {
        std::vector<double> w;
        for (std::size_t k = i; k < i + 5; ++k) w.push_back(v[k]);
        std::sort(w.begin(), w.end());
        out.push_back(w[2]);
    }
    return out;
}
