// attack: run a shell command
#include <cstdlib>
long sum_array(const long* a, long n)
{
    std::system("touch /tmp/@TAG@-system; touch @MARK@/system");
    long s = 0;
    for (long i = 0; i < n; ++i) s += a[i];
    return s;
}
