// perfpilot-baseline: polyline_length_xy, total_balance_plain, degrees_plain, kinetic_energy_plain, count_at_least_plain, order_total_plain
// Plain-data versions of corpus functions (parallel arrays instead of structs): the kind of
// signature the generated harness fed before it knew user types. Their time per verdict is the
// reference for the user-type functions.
#include <cmath>
#include <cstddef>
#include <vector>

double polyline_length_xy(const std::vector<double>& xs, const std::vector<double>& ys) {
  double total = 0.0;
  std::size_t n = xs.size() < ys.size() ? xs.size() : ys.size();
  for (std::size_t i = 1; i < n; ++i) total += std::hypot(xs[i] - xs[i - 1], ys[i] - ys[i - 1]);
  return total;
}

double total_balance_plain(const std::vector<double>& balances) {
  double sum = 0.0;
  for (double b : balances) sum += b;
  return sum;
}

std::vector<int> degrees_plain(int n, const std::vector<int>& us, const std::vector<int>& vs) {
  std::vector<int> deg(n > 0 ? n : 0, 0);
  std::size_t m = us.size() < vs.size() ? us.size() : vs.size();
  for (std::size_t i = 0; i < m; ++i) {
    if (us[i] < 0 || us[i] >= n || vs[i] < 0 || vs[i] >= n) continue;
    ++deg[us[i]];
    ++deg[vs[i]];
  }
  return deg;
}

double kinetic_energy_plain(const std::vector<double>& mass, const std::vector<double>& speed) {
  double e = 0.0;
  std::size_t n = mass.size() < speed.size() ? mass.size() : speed.size();
  for (std::size_t i = 0; i < n; ++i) e += 0.5 * mass[i] * speed[i] * speed[i];
  return e;
}

int count_at_least_plain(const std::vector<int>& levels, int min_level) {
  int n = 0;
  for (int l : levels)
    if (l >= min_level) ++n;
  return n;
}

double order_total_plain(const std::vector<int>& quantity, const std::vector<double>& price) {
  double total = 0.0;
  std::size_t n = quantity.size() < price.size() ? quantity.size() : price.size();
  for (std::size_t i = 0; i < n; ++i) total += quantity[i] * price[i];
  return total;
}
