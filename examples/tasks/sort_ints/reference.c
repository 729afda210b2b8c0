/* Reference: the C library's qsort. */
#include <stdlib.h>

static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

int count_distinct(int *a, int n)
{
    if (n > 0)
        qsort(a, (size_t)n, sizeof a[0], cmp_int);
    int distinct = 0;
    for (int i = 0; i < n; i++)
        if (i == 0 || a[i] != a[i - 1])
            distinct++;
    return distinct;
}
