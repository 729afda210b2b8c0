/* y[i] = exp(-x[i]) * cos(3 x[i]) + log1p(x[i]) for every element. */
#include <math.h>

void transform(double *y, const double *x, int n)
{
    for (int i = 0; i < n; i++)
        y[i] = exp(-x[i]) * cos(3.0 * x[i]) + log1p(x[i]);
}
