#include <cmath>
#include <vector>

// Pearson correlation between every pair of sensor series (rows of equal length), for the
// monitoring dashboard's heat map.
std::vector<std::vector<double>> correlation_matrix(const std::vector<std::vector<double>>& series) {
    const std::size_t m = series.size();
    std::vector<std::vector<double>> corr(m, std::vector<double>(m, 0.0));
    for (std::size_t a = 0; a < m; ++a) {
        for (std::size_t b = 0; b < m; ++b) {
            const std::vector<double>& x = series[a];
            const std::vector<double>& y = series[b];
            const std::size_t n = x.size();
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
            corr[a][b] = sxy / std::sqrt(sxx * syy);
        }
    }
    return corr;
}
