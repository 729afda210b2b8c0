/* Horner's rule: h = h * 131 + byte, one multiplication per byte. Modular arithmetic gives the
 * same residue in either order. */
unsigned long long poly_hash(const unsigned char *bytes, int n)
{
    const unsigned long long mod = 1000000007ULL;
    unsigned long long h = 0;
    int i;
    for (i = 0; i < n; ++i)
        h = (h * 131ULL + bytes[i]) % mod;
    return h;
}
