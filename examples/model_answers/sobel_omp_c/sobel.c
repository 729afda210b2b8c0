#include <stdlib.h>

/* Edge strength of an n x n grayscale image (row-major): |gx| + |gy| of the 3x3 Sobel
 * operator at each pixel; the one-pixel border, which has no full neighbourhood, gets 0. The
 * loops visit the image column by column. */
void sobel_magnitude(const unsigned char *img, int *grad, int n)
{
    int x, y;
    for (x = 0; x < n; ++x) {
        for (y = 0; y < n; ++y) {
            int gx, gy;
            if (x == 0 || y == 0 || x == n - 1 || y == n - 1) {
                grad[y * n + x] = 0;
                continue;
            }
            gx = -img[(y - 1) * n + (x - 1)] + img[(y - 1) * n + (x + 1)]
                 - 2 * img[y * n + (x - 1)] + 2 * img[y * n + (x + 1)]
                 - img[(y + 1) * n + (x - 1)] + img[(y + 1) * n + (x + 1)];
            gy = -img[(y - 1) * n + (x - 1)] - 2 * img[(y - 1) * n + x] - img[(y - 1) * n + (x + 1)]
                 + img[(y + 1) * n + (x - 1)] + 2 * img[(y + 1) * n + x] + img[(y + 1) * n + (x + 1)];
            grad[y * n + x] = abs(gx) + abs(gy);
        }
    }
}
