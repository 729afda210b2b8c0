#include <stddef.h>

/* Wrapping unsigned addition is associative, so a parallel reduction gives the same total. */
unsigned long mix_checksum(const unsigned *words, size_t count)
{
    unsigned long total = 0;
    long i;
    #pragma omp parallel for reduction(+:total) schedule(static)
    for (i = 0; i < (long)count; i++) {
        unsigned long h = words[i];
        int round;
        for (round = 0; round < 8; round++) {
            h ^= h >> 33;
            h *= 0xff51afd7ed558ccdUL;
            h ^= h >> 29;
        }
        total += h;
    }
    return total;
}
