#include <cmath>
#include <vector>

constexpr int kLevels = 256;  // every value an 8-bit pixel can take

// Gamma-correct 8-bit pixel values: 255 * (p / 255)^gamma, rounded to nearest. A gamma that
// is not positive (or is NaN) leaves the image unchanged.
std::vector<unsigned char> apply_gamma(const std::vector<unsigned char>& pixels, double gamma) {
    if (!(gamma > 0.0)) gamma = 1.0;
    // Only 256 inputs exist: evaluate pow once per level (the same expression, so the same
    // results), then map every pixel through the table.
    unsigned char table[kLevels];
    for (int p = 0; p < kLevels; ++p) {
        table[p] = static_cast<unsigned char>(255.0 * std::pow(p / 255.0, gamma) + 0.5);
    }
    std::vector<unsigned char> out(pixels.size());
    for (std::size_t i = 0; i < pixels.size(); ++i) out[i] = table[pixels[i]];
    return out;
}
