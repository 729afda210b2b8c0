#include <algorithm>
#include <array>
#include <vector>

// The window lives on the stack (no allocation per window) and the output is sized once;
// the same std::sort runs on the same five values, so even NaNs land where they did.
std::vector<double> median5(const std::vector<double>& v) {
    if (v.size() < 5) return {};
    std::vector<double> out(v.size() - 4);
    std::array<double, 5> w;
    for (std::size_t i = 0; i + 5 <= v.size(); ++i) {
        std::copy(v.begin() + i, v.begin() + i + 5, w.begin());
        std::sort(w.begin(), w.end());
        out[i] = w[2];
    }
    return out;
}
