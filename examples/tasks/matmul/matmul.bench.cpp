// Bench spec: the size is the matrix side; inputs are uniform in [0, 1).
#include <perfpilot_bench.hpp>

using Fn = void (*)(const double*, const double*, double*, int);

struct Bench {
  int side = 0;
  std::vector<double> a, b, c;
  void setup(std::size_t n, std::mt19937_64& rng) {
    side = static_cast<int>(n);
    std::uniform_real_distribution<double> d(0.0, 1.0);
    a.resize(n * n);
    b.resize(n * n);
    c.assign(n * n, 0.0);
    for (auto& x : a) x = d(rng);
    for (auto& x : b) x = d(rng);
  }
  void call(Fn f) { f(a.data(), b.data(), c.data(), side); }
  void record(perfpilot::Recorder& r) const { r.add("c", c); }
  static constexpr std::size_t min_size = 8;
  static constexpr std::size_t max_size = 192;
};
PERFPILOT_BENCH(Bench, Fn)
