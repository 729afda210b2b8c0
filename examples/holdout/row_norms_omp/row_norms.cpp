#include <cmath>
#include <vector>

// Euclidean length of every row of an n-by-n float matrix.
std::vector<float> row_norms(const float* m, int n) {
    std::vector<float> out;
    for (int r = 0; r < n; r++) {
        float s = 0.0f;
        for (int c = 0; c < n; c++) s += m[r * n + c] * m[r * n + c];
        out.push_back(std::sqrt(s));
    }
    return out;
}
