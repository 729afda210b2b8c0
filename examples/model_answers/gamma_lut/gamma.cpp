#include <cmath>
#include <vector>

// Gamma-correct 8-bit pixel values: 255 * (p / 255)^gamma, rounded to nearest. A gamma that
// is not positive (or is NaN) leaves the image unchanged.
std::vector<unsigned char> apply_gamma(const std::vector<unsigned char>& pixels, double gamma) {
    if (!(gamma > 0.0)) gamma = 1.0;
    std::vector<unsigned char> out(pixels.size());
    for (std::size_t i = 0; i < pixels.size(); ++i) {
        out[i] = static_cast<unsigned char>(255.0 * std::pow(pixels[i] / 255.0, gamma) + 0.5);
    }
    return out;
}
