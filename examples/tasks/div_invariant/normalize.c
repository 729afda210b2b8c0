/* Sum of |x[i]| / d, written with a division and sqrt(x*x) per element. */
#include <math.h>

double normalized_sum(const double *x, int n, double d)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += sqrt(x[i] * x[i]) / (d + 1.0);
    return s;
}
