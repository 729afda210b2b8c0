#include <stdio.h>

/* Reads a count and that many integers; prints, for each, the largest value read so far. */
int main(void)
{
    int count = 0, i;
    long value, best = 0;
    if (scanf("%d", &count) != 1)
        return 0;
    for (i = 0; i < count; ++i) {
        if (scanf("%ld", &value) != 1)
            break;
        if (i == 0 || value > best)
            best = value;
        printf("%ld\n", best);
        fflush(stdout);
    }
    return 0;
}
