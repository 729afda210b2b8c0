/* sum over i of bytes[i] * 131^(n-1-i), modulo 1000000007. */
unsigned long long poly_hash(const unsigned char *bytes, int n)
{
    const unsigned long long mod = 1000000007ULL;
    unsigned long long h = 0;
    int i, k;
    for (i = 0; i < n; ++i) {
        unsigned long long p = 1;
        for (k = 0; k < n - 1 - i; ++k)
            p = p * 131ULL % mod;
        h = (h + bytes[i] * p) % mod;
    }
    return h;
}
