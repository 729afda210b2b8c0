#include <cmath>
#include <vector>

// Samples are independent: an OpenMP loop over indices.
void soft_clip(std::vector<float>& samples, float gain) {
    const long n = static_cast<long>(samples.size());
    float* s = samples.data();
    #pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i) s[i] = std::tanh(gain * s[i]);
}
