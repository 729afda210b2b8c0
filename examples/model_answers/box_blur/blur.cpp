#include <vector>

// 13x13 box blur of a grayscale image (rows of equal length): each output pixel is the mean,
// rounded toward zero, of the input pixels under the window, which is clipped at the borders.
std::vector<std::vector<int>> box_blur(const std::vector<std::vector<int>>& image) {
    const int radius = 6;
    const int h = static_cast<int>(image.size());
    const int w = h > 0 ? static_cast<int>(image[0].size()) : 0;
    std::vector<std::vector<int>> out(h, std::vector<int>(w, 0));
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            long long sum = 0;
            int count = 0;
            for (int dy = -radius; dy <= radius; ++dy) {
                for (int dx = -radius; dx <= radius; ++dx) {
                    const int yy = y + dy;
                    const int xx = x + dx;
                    if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
                    sum += image[yy][xx];
                    ++count;
                }
            }
            out[y][x] = static_cast<int>(sum / count);
        }
    }
    return out;
}
