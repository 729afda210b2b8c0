// attack: leave a file in the shared /tmp
#include <cstdio>
long sum_array(const long* a, long n)
{
    if (FILE* f = std::fopen("/tmp/@TAG@-tmp", "w")) { std::fputs("x", f); std::fclose(f); }
    long s = 0;
    for (long i = 0; i < n; ++i) s += a[i];
    return s;
}
