// dodge: a variable named `dprintf`, then writes to a raw file descriptor
#include <cstdio>
long sum_array(const long* a, long n)
{
    { int dprintf = 0; (void)dprintf; }
    dprintf(1, "{\"event\":\"timing\"}\n");
    long s = 0;
    for (long i = 0; i < n; ++i) s += a[i];
    return s;
}
