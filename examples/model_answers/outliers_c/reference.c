#include <math.h>

double mean_of(const double *x, int n)
{
    double s = 0.0;
    int i;
    for (i = 0; i < n; ++i)
        s += x[i];
    return s / n;
}

double stddev_of(const double *x, int n)
{
    double m = mean_of(x, n);
    double s = 0.0;
    int i;
    for (i = 0; i < n; ++i)
        s += (x[i] - m) * (x[i] - m);
    return sqrt(s / (n - 1));
}

/* Sensor QC: how many readings lie more than three sample standard deviations from the
 * mean. Fewer than two readings have no spread, so none is an outlier. */
int count_outliers(const double *x, int n)
{
    int count = 0;
    int i;
    double mean, limit;
    if (n < 2)
        return 0;
    /* The readings do not change inside the loop: compute the statistics once. */
    mean = mean_of(x, n);
    limit = 3.0 * stddev_of(x, n);
    for (i = 0; i < n; ++i) {
        if (fabs(x[i] - mean) > limit)
            ++count;
    }
    return count;
}
