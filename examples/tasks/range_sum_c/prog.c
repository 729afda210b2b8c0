/* Reads n, q, n values and q queries "l r" (0-based, inclusive); prints each range's sum. */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    int n = 0, q = 0;
    if (scanf("%d %d", &n, &q) != 2)
        return 1;
    int *a = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++)
        scanf("%d", &a[i]);
    for (int k = 0; k < q; k++) {
        int l = 0, r = 0;
        scanf("%d %d", &l, &r);
        long long s = 0;
        for (int i = l; i <= r; i++)
            s += a[i];
        printf("%lld\n", s);
        fflush(stdout);
    }
    free(a);
    return 0;
}
