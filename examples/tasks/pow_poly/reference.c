/* Reference: multiplications for the integer powers, sqrt() for the half power. */
#include <math.h>

double poly_sum(const double *x, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        const double v = x[i];
        const double v2 = v * v;
        s += 3.0 * v2 * v - 2.0 * v2 + sqrt(v);
    }
    return s;
}
