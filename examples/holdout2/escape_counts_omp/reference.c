/* Points are independent but cost from 1 to 500 iterations: dynamic scheduling balances them. */
void escape_counts(int *out, int n)
{
    int k;
    #pragma omp parallel for schedule(dynamic, 16)
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
