#include <cmath>
#include <vector>

// Pearson correlation between every pair of sensor series (rows of equal length), for the
// monitoring dashboard's heat map.
std::vector<std::vector<double>> correlation_matrix(const std::vector<std::vector<double>>& series) {
    const long m = static_cast<long>(series.size());
    std::vector<std::vector<double>> corr(series.size(), std::vector<double>(series.size(), 0.0));
    // corr(a, b) and corr(b, a) do the same multiplications with the operands swapped, so they
    // are bit-identical: compute b >= a only and mirror. Every cell is written by one
    // iteration, so rows can go to different threads; later rows are shorter, hence dynamic.
#pragma omp parallel for schedule(dynamic, 1)
    for (long a = 0; a < m; ++a) {
        const std::vector<double>& x = series[a];
        const std::size_t n = x.size();
        for (long b = a; b < m; ++b) {
            const std::vector<double>& y = series[b];
            double mx = 0.0, my = 0.0;
            for (std::size_t i = 0; i < n; ++i) {
                mx += x[i];
                my += y[i];
            }
            mx /= static_cast<double>(n);
            my /= static_cast<double>(n);
            double sxy = 0.0, sxx = 0.0, syy = 0.0;
            for (std::size_t i = 0; i < n; ++i) {
                const double dx = x[i] - mx;
                const double dy = y[i] - my;
                sxy += dx * dy;
                sxx += dx * dx;
                syy += dy * dy;
            }
            const double r = sxy / std::sqrt(sxx * syy);
            corr[a][b] = r;
            corr[b][a] = r;
        }
    }
    return corr;
}
