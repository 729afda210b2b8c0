long total(const int *a, int n) {
    long s = 0;
    #pragma omp parallel for reduction(+:s)
    for (int i = 0; i < n; ++i) {
        s += a[i];
    }
    return s;
}
