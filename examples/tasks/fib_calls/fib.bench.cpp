// Bench spec: the size is the argument itself (kept small: the original is exponential).
#include <perfpilot_bench.hpp>

using Fn = long (*)(int);

struct Bench {
  int arg = 0;
  long result = 0;
  void setup(std::size_t n, std::mt19937_64&) { arg = static_cast<int>(n); }
  void call(Fn f) { result = f(arg); }
  void record(perfpilot::Recorder& r) const { r.add("fib", result); }
  static constexpr std::size_t min_size = 8;
  static constexpr std::size_t max_size = 24;
  static std::vector<std::size_t> edge_sizes() { return {0, 1, 2, 5, 12}; }
};
PERFPILOT_BENCH(Bench, Fn)
