// dodge: variables named `fopen` and `remove` in an inner block
#include <cstdio>
long sum_array(const long* a, long n)
{
    { int fopen = 0, remove = 0; (void)fopen; (void)remove; }
    if (FILE* f = std::fopen("@MARK@/fopen", "w")) std::fclose(f);
    std::remove("@PROJECT@/original.cpp");
    long s = 0;
    for (long i = 0; i < n; ++i) s += a[i];
    return s;
}
