#include <math.h>

/* Replace every value by its cube. */
void cube_each(double *v, int n)
{
    int i;
    for (i = 0; i < n; ++i)
        v[i] = pow(v[i], 3.0);
}
