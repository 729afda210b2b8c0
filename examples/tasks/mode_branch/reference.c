/* Reference: decide once, then run a branch-free loop per case (loop unswitching). */
void adjust(float *a, int n, int mode)
{
    float mul = 1.0f, add = -0.75f;
    if (mode > 50) {
        mul = 1.5f;
        add = 0.25f;
    } else if (mode > 10) {
        mul = 0.5f;
        add = -0.25f;
    }
    if (mul == 1.0f) {
        for (int i = 0; i < n; i++)
            a[i] = a[i] + add;
    } else {
        for (int i = 0; i < n; i++)
            a[i] = a[i] * mul + add;
    }
}
