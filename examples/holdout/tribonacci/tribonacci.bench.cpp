#include <perfpilot_bench.hpp>
#include <vector>

using Fn = unsigned long long (*)(int);

// The naive recursion grows like 1.84^n, so sizes stay small.
struct Bench {
  static constexpr std::size_t max_size = 30;
  static constexpr std::size_t min_size = 8;
  static std::vector<std::size_t> edge_sizes() { return {0, 1, 2, 3, 4, 7, 12, 20}; }

  int n = 0;
  unsigned long long result = 0;

  void setup(std::size_t size, std::mt19937_64&) { n = static_cast<int>(size); }
  void call(Fn f) { result = f(n); }
  void record(perfpilot::Recorder& r) const { r.add("result", result); }
};
PERFPILOT_BENCH(Bench, Fn)
