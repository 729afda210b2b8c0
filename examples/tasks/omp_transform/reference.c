/* Reference: the same loop, split across threads. */
#include <math.h>

void transform(double *y, const double *x, int n)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++)
        y[i] = exp(-x[i]) * cos(3.0 * x[i]) + log1p(x[i]);
}
