#include <perfpilot_bench.hpp>
#include <cmath>
#include <vector>

struct Pt {
  double x, y;
};

using Fn = long (*)(const std::vector<Pt>&, double);

// Uniform points in the unit square; the radius shrinks with n so each point has a few
// neighbours.
struct Bench {
  std::vector<Pt> pts;
  double r = 0.1;
  long count = 0;

  void setup(std::size_t n, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    pts.resize(n);
    for (auto& p : pts) p = Pt{u(rng), u(rng)};
    r = n > 16 ? 2.0 / std::sqrt(static_cast<double>(n)) : 0.25;
  }
  void call(Fn f) { count = f(pts, r); }
  void record(perfpilot::Recorder& r_) const { r_.add("count", count); }
};
PERFPILOT_BENCH(Bench, Fn)
