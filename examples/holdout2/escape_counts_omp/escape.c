/* out[k] = iterations before z -> z*z + c leaves the radius-2 disc (at most 500), for
 * c = -2 + 2.5 * k / n + 0.35i. */
void escape_counts(int *out, int n)
{
    int k;
    for (k = 0; k < n; ++k) {
        double cr = -2.0 + 2.5 * k / n, ci = 0.35;
        double zr = 0.0, zi = 0.0;
        int it = 0;
        while (it < 500 && zr * zr + zi * zi <= 4.0) {
            double t = zr * zr - zi * zi + cr;
            zi = 2.0 * zr * zi + ci;
            zr = t;
            ++it;
        }
        out[k] = it;
    }
}
