/* Adjust samples in place; which formula applies depends on a flag fixed for the call. */
void adjust(float *a, int n, int mode)
{
    for (int i = 0; i < n; i++) {
        if (mode > 50)
            a[i] = a[i] * 1.5f + 0.25f;
        else if (mode > 10)
            a[i] = a[i] * 0.5f - 0.25f;
        else
            a[i] = a[i] - 0.75f;
    }
}
