// not a dodge: the same function made faster honestly (two accumulators, a constant table)
long sum_array(const long* a, long n)
{
    static const long zero[2] = {0, 0};
    long s0 = zero[0], s1 = zero[1];
    long i = 0;
    for (; i + 1 < n; i += 2) {
        s0 += a[i];
        s1 += a[i + 1];
    }
    if (i < n) s0 += a[i];
    return s0 + s1;
}
