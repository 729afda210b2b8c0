/* Reference: fabs() instead of sqrt of a square; one division, outside the loop. */
#include <math.h>

double normalized_sum(const double *x, int n, double d)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += fabs(x[i]);
    return s / (d + 1.0);
}
