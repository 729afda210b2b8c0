void saxpy(float *__restrict y, const float *__restrict x, float a, int n) {
    #pragma omp parallel for
    for (int i = 0; i < n; ++i) {
        y[i] = a * x[i] + y[i];
    }
}
