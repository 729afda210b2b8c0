#include <cmath>
#include <vector>

// Soft-clip audio samples in place with a tanh curve after a gain.
void soft_clip(std::vector<float>& samples, float gain) {
    for (auto it = samples.begin(); it != samples.end(); ++it) {
        *it = std::tanh(gain * *it);
    }
}
