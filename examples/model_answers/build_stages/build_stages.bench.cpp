#include <perfpilot_bench.hpp>
#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

using Fn = std::vector<int> (*)(int, const std::vector<std::pair<int, int>>&);

// A build graph of n targets shaped like a real project: each target (in a hidden build
// order) depends on one to three of the eight targets just before it, so the graph is deep
// (long chains of stages) and acyclic. Targets are numbered by a random permutation and the
// edges listed in random order, as a build file lists them.
struct Bench {
  int targets = 0;
  std::vector<std::pair<int, int>> deps;
  std::vector<int> stage;

  void setup(std::size_t n, std::mt19937_64& rng) {
    targets = static_cast<int>(n);
    std::vector<int> label(n);
    std::iota(label.begin(), label.end(), 0);
    std::shuffle(label.begin(), label.end(), rng);
    deps.clear();
    for (std::size_t k = 1; k < n; ++k) {
      const std::size_t window = std::min<std::size_t>(k, 8);
      const std::size_t count = 1 + rng() % 3;
      for (std::size_t e = 0; e < count; ++e) {
        const std::size_t pre = k - 1 - rng() % window;
        deps.emplace_back(label[pre], label[k]);
      }
    }
    std::shuffle(deps.begin(), deps.end(), rng);
  }
  void call(Fn f) { stage = f(targets, deps); }
  void record(perfpilot::Recorder& r) const { r.add("stage", stage); }
};
PERFPILOT_BENCH(Bench, Fn)
