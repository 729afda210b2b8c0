// Bench spec: arrays small enough to stay in cache, so the arithmetic is what is timed.
#include <perfpilot_bench.hpp>

using Fn = void (*)(float*, const float*, const float*, float, float, int);

struct Bench {
  std::vector<float> out, init, x, y;
  void setup(std::size_t n, std::mt19937_64& rng) {
    std::uniform_real_distribution<float> d(0.0f, 1.0f);
    x.resize(n);
    y.resize(n);
    init.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = d(rng);
      y[i] = d(rng);
      init[i] = d(rng);
    }
    out = init;
  }
  void reset() { out = init; }
  void call(Fn f) { f(out.data(), x.data(), y.data(), 0.75f, 1.25f, static_cast<int>(out.size())); }
  void record(perfpilot::Recorder& r) const { r.add("out", out); }
  static constexpr std::size_t max_size = 4096;
};
PERFPILOT_BENCH(Bench, Fn)
