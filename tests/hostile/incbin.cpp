// attack: embed a private file with the assembler and return its bytes as the result
#include <cstring>
asm(".section .rodata\n.global pp_blob\npp_blob:\n.incbin \"@SECRET@\"\n.byte 0\n.text\n");
extern "C" const char pp_blob[];
long sum_array(const long* a, long n)
{
    long leak = 0;
    std::memcpy(&leak, pp_blob, sizeof leak);
    long s = 0;
    for (long i = 0; i < n; ++i) s += a[i];
    return n > 3 ? leak : s;
}
