#include <stdlib.h>

/* Edge strength of an n x n grayscale image (row-major): |gx| + |gy| of the 3x3 Sobel
 * operator at each pixel; the one-pixel border, which has no full neighbourhood, gets 0. The
 * loops visit the image column by column. */
void sobel_magnitude(const unsigned char *img, int *grad, int n)
{
    int y;
    /* Row by row, in storage order, and the rows split across threads: every output pixel
     * is written once from read-only input, so the result is the same at any thread count. */
#pragma omp parallel for schedule(static)
    for (y = 0; y < n; ++y) {
        int *out = grad + (size_t)y * n;
        const unsigned char *up, *mid, *down;
        int x;
        if (y == 0 || y == n - 1) {
            for (x = 0; x < n; ++x)
                out[x] = 0;
            continue;
        }
        up = img + (size_t)(y - 1) * n;
        mid = up + n;
        down = mid + n;
        out[0] = 0;
        for (x = 1; x < n - 1; ++x) {
            int gx = -up[x - 1] + up[x + 1] - 2 * mid[x - 1] + 2 * mid[x + 1]
                     - down[x - 1] + down[x + 1];
            int gy = -up[x - 1] - 2 * up[x] - up[x + 1]
                     + down[x - 1] + 2 * down[x] + down[x + 1];
            out[x] = abs(gx) + abs(gy);
        }
        out[n - 1] = 0;
    }
}
