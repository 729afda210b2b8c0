#include <vector>

// No temporary window per point: add the three neighbours directly (same order, same sum).
std::vector<float> blur3(const std::vector<float>& in) {
    std::vector<float> out(in);
    const std::size_t n = in.size();
    for (std::size_t i = 1; i + 1 < n; ++i) {
        float s = 0.0f;
        s += in[i - 1];
        s += in[i];
        s += in[i + 1];
        out[i] = s / 3.0f;
    }
    return out;
}
