// attack: leave a file in /var/tmp through a stream
#include <fstream>
long sum_array(const long* a, long n)
{
    std::ofstream out("/var/tmp/@TAG@-vartmp");
    out << "x";
    long s = 0;
    for (long i = 0; i < n; ++i) s += a[i];
    return s;
}
