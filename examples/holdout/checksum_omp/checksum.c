#include <stddef.h>

/* Sum of a per-word integer hash (wrapping arithmetic). */
unsigned long mix_checksum(const unsigned *words, size_t count)
{
    unsigned long total = 0;
    size_t i = 0;
    while (i < count) {
        unsigned long h = words[i];
        int round;
        for (round = 0; round < 8; round++) {
            h ^= h >> 33;
            h *= 0xff51afd7ed558ccdUL;
            h ^= h >> 29;
        }
        total += h;
        i++;
    }
    return total;
}
