/* Reference: test the flag once (loop unswitching); each loop is branch-free and, with
   restrict-qualified pointers, vectorizes. */
void adjust(float *restrict a, float *restrict b, int n, int mode)
{
    if (mode > 50) {
        for (int i = 0; i < n; i++)
            a[i] = a[i] * 1.5f + b[i];
    } else {
        for (int i = 0; i < n; i++)
            b[i] = b[i] * 0.5f - a[i];
    }
}
