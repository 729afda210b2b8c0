// dodge: a detached thread that keeps running after the call returned
#include <thread>
long sum_array(const long* a, long n)
{
    std::thread([n] { (void)n; }).detach();
    long s = 0;
    for (long i = 0; i < n; ++i) s += a[i];
    return s;
}
