/* Outputs are independent: split them across threads. Each keeps the original tap order, so
 * every sum is the same. */
void fir31(const float *restrict x, float *restrict y, int n)
{
    int i;
    #pragma omp parallel for schedule(static)
    for (i = 0; i < n; ++i) {
        int t;
        float acc = 0.0f;
        for (t = 0; t < 31; ++t) {
            int at = i + t - 15;
            float w = (float)(t < 16 ? t + 1 : 31 - t) / 256.0f;
            if (at >= 0 && at < n)
                acc += w * x[at];
        }
        y[i] = acc;
    }
}
