#include <algorithm>
#include <vector>

// Summed-area table of an h x w image, (h + 1) x (w + 1) row-major: entry (y, x) holds the sum
// of image[0..y)[0..x). 64-bit sums cannot overflow for int pixels.
std::vector<long long> integral_image(const std::vector<std::vector<int>>& image, int h, int w) {
    const std::size_t stride = static_cast<std::size_t>(w) + 1;
    std::vector<long long> sat((static_cast<std::size_t>(h) + 1) * stride, 0);
    for (int y = 0; y < h; ++y) {
        long long row = 0;
        for (int x = 0; x < w; ++x) {
            row += image[y][x];
            sat[(y + 1) * stride + (x + 1)] = sat[y * stride + (x + 1)] + row;
        }
    }
    return sat;
}

// 13x13 box blur of a grayscale image (rows of equal length): each output pixel is the mean,
// rounded toward zero, of the input pixels under the window, which is clipped at the borders.
std::vector<std::vector<int>> box_blur(const std::vector<std::vector<int>>& image) {
    const int radius = 6;
    const int h = static_cast<int>(image.size());
    const int w = h > 0 ? static_cast<int>(image[0].size()) : 0;
    std::vector<std::vector<int>> out(h, std::vector<int>(w, 0));
    const std::vector<long long> sat = integral_image(image, h, w);
    const std::size_t stride = static_cast<std::size_t>(w) + 1;
    for (int y = 0; y < h; ++y) {
        const int y0 = std::max(0, y - radius);
        const int y1 = std::min(h, y + radius + 1);  // exclusive
        for (int x = 0; x < w; ++x) {
            const int x0 = std::max(0, x - radius);
            const int x1 = std::min(w, x + radius + 1);  // exclusive
            const long long sum = sat[y1 * stride + x1] - sat[y0 * stride + x1] -
                                  sat[y1 * stride + x0] + sat[y0 * stride + x0];
            const long long count = static_cast<long long>(y1 - y0) * (x1 - x0);
            out[y][x] = static_cast<int>(sum / count);
        }
    }
    return out;
}
