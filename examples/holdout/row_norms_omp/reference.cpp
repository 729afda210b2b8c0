#include <cmath>
#include <vector>

// Rows are independent: size the output once and give rows to threads.
std::vector<float> row_norms(const float* m, int n) {
    std::vector<float> out(n > 0 ? n : 0);
    #pragma omp parallel for schedule(static)
    for (int r = 0; r < n; r++) {
        const float* row = m + static_cast<long>(r) * n;
        float s = 0.0f;
        for (int c = 0; c < n; c++) s += row[c] * row[c];
        out[r] = std::sqrt(s);
    }
    return out;
}
