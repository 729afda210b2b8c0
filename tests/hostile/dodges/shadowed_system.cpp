// dodge: a block-scope variable named `system` made the name look like the candidate's own
#include <cstdlib>
long sum_array(const long* a, long n)
{
    { int system = 0; (void)system; }
    std::system("touch /tmp/@TAG@-system; touch @MARK@/system");
    long s = 0;
    for (long i = 0; i < n; ++i) s += a[i];
    return s;
}
