// attack: an angle include of an absolute path, to print a private file in the build log
#include <@SECRET@>
long sum_array(const long* a, long n)
{
    long s = 0;
    for (long i = 0; i < n; ++i) s += a[i];
    return s;
}
