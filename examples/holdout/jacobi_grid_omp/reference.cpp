// Row-major traversal (unit stride), interior split from the border, rows across threads.
void jacobi_sweep(const double* __restrict src, double* __restrict dst, int n) {
    if (n <= 0) return;
    #pragma omp parallel for schedule(static)
    for (int row = 0; row < n; row++) {
        const double* s = src + static_cast<long>(row) * n;
        double* d = dst + static_cast<long>(row) * n;
        if (row == 0 || row == n - 1) {
            for (int col = 0; col < n; col++) d[col] = s[col];
            continue;
        }
        d[0] = s[0];
        for (int col = 1; col < n - 1; col++)
            d[col] = 0.25 * (s[col - n] + s[col + n] + s[col - 1] + s[col + 1]);
        d[n - 1] = s[n - 1];
    }
}
