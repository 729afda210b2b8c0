#include <perfpilot_bench.hpp>
#include <vector>

using Fn = long (*)(const std::vector<int>&, long long);

// Non-negative costs and a budget a random fraction (0.3 to 0.9) of their total, so the
// crossing falls somewhere in the middle, as when a budget is sized to the workload; one
// size in eight gets a budget above the total (no crossing).
struct Bench {
  std::vector<int> costs;
  long long budget = 0;
  long found = 0;

  void setup(std::size_t n, std::mt19937_64& rng) {
    costs.resize(n);
    long long total = 0;
    for (auto& c : costs) {
      c = static_cast<int>(rng() % 1000);
      total += c;
    }
    if (rng() % 8 == 0) {
      budget = total + 1;
    } else {
      budget = total * static_cast<long long>(30 + rng() % 61) / 100;
    }
  }
  void call(Fn f) { found = f(costs, budget); }
  void record(perfpilot::Recorder& r) const { r.add("found", found); }
};
PERFPILOT_BENCH(Bench, Fn)
