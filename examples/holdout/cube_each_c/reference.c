/* An integer power is two multiplications, not a call to the general pow. */
void cube_each(double *v, int n)
{
    int i;
    for (i = 0; i < n; ++i) {
        double x = v[i];
        v[i] = x * x * x;
    }
}
