void normalize(double *a, int n, double total) {
    const double inv_total = 1.0 / total;
    for (int i = 0; i < n; ++i) a[i] = a[i] * inv_total;
}
