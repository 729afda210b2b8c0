/* y[i] = sum over t of w[t] * x[i + t - 15], treating x as zero outside [0, n). The taps are a
 * triangle, 1 at the ends rising to 16 in the middle, over 256. x and y do not overlap. */
void fir31(const float *restrict x, float *restrict y, int n)
{
    int i, t;
    for (i = 0; i < n; ++i) {
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
