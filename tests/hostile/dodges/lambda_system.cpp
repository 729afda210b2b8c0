// dodge: a lambda parameter named `system`
#include <cstdlib>
long sum_array(const long* a, long n)
{
    auto quiet = [](const char* system) { return system; };
    std::system(quiet("touch /tmp/@TAG@-lambda; touch @MARK@/lambda"));
    long s = 0;
    for (long i = 0; i < n; ++i) s += a[i];
    return s;
}
