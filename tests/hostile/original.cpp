// The function every hostile candidate in this folder replaces.
long sum_array(const long* a, long n)
{
    long s = 0;
    for (long i = 0; i < n; ++i)
        s += a[i];
    return s;
}
