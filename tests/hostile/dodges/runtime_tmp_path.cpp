// dodge: a /tmp path built at run time (no path literal), written through a shadowed fopen
#include <cstdio>
#include <string>
long sum_array(const long* a, long n)
{
    { int fopen = 0; (void)fopen; }
    std::string path = std::string(1, '/') + "tmp" + std::string(1, '/') + "@TAG@-runtime";
    if (FILE* f = std::fopen(path.c_str(), "w")) std::fclose(f);
    long s = 0;
    for (long i = 0; i < n; ++i) s += a[i];
    return s;
}
