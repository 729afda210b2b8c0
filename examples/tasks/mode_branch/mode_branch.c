/* Update one of two arrays; which one depends on a flag that is fixed for the whole call,
   yet it is tested on every iteration and the stores stop the loop from vectorizing. */
void adjust(float *a, float *b, int n, int mode)
{
    for (int i = 0; i < n; i++) {
        if (mode > 50)
            a[i] = a[i] * 1.5f + b[i];
        else
            b[i] = b[i] * 0.5f - a[i];
    }
}
