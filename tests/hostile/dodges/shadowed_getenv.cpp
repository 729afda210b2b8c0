// dodge: a variable named `getenv`, then the environment read through std::getenv
#include <cstdlib>
#include <cstring>
long sum_array(const long* a, long n)
{
    { int getenv = 0; (void)getenv; }
    const char* secret = std::getenv("PP_HOSTILE_SECRET");
    long s = secret ? (long)std::strlen(secret) * 0 : 0;
    for (long i = 0; i < n; ++i) s += a[i];
    return s;
}
