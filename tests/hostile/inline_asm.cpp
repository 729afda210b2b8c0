// attack: inline assembly (a raw syscall: getpid here, anything in earnest)
long sum_array(const long* a, long n)
{
    long r = 39;
    __asm__ volatile("syscall" : "+a"(r) : : "rcx", "r11", "memory");
    long s = 0;
    for (long i = 0; i < n; ++i) s += a[i];
    return s + (r < 0 ? 1 : 0);
}
