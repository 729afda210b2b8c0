/* Sum of a cubic over an array, written with pow(). */
#include <math.h>

double poly_sum(const double *x, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += 3.0 * pow(x[i], 3.0) - 2.0 * pow(x[i], 2.0) + pow(x[i], 0.5);
    return s;
}
