/* Reference: i-k-j order, so the inner loop walks rows of b and c contiguously. */
void matmul(const double *a, const double *b, double *c, int n)
{
    for (int i = 0; i < n * n; i++)
        c[i] = 0.0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++) {
            const double aik = a[i * n + k];
            const double *brow = b + k * n;
            double *crow = c + i * n;
            for (int j = 0; j < n; j++)
                crow[j] += aik * brow[j];
        }
}
