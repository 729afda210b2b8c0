// One Jacobi sweep on an n-by-n grid stored row by row: interior points become the mean of
// their four neighbours, the border is copied.
void jacobi_sweep(const double* __restrict src, double* __restrict dst, int n) {
    for (int col = 0; col < n; col++) {
        for (int row = 0; row < n; row++) {
            if (row == 0 || col == 0 || row == n - 1 || col == n - 1) {
                dst[row * n + col] = src[row * n + col];
            } else {
                dst[row * n + col] = 0.25 * (src[(row - 1) * n + col] + src[(row + 1) * n + col] +
                                             src[row * n + col - 1] + src[row * n + col + 1]);
            }
        }
    }
}
