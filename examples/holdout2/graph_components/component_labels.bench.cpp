#include <perfpilot_bench.hpp>
#include <utility>
#include <vector>

using Fn = std::vector<int> (*)(int, const std::vector<std::pair<int, int>>&);

// A sparse random graph (about 0.6 edges per vertex): many components, some long paths, edges
// in random order so labels travel slowly when propagated.
struct Bench {
  int n = 0;
  std::vector<std::pair<int, int>> edges;
  std::vector<int> labels;

  void setup(std::size_t size, std::mt19937_64& rng) {
    n = static_cast<int>(size);
    edges.clear();
    if (n == 0) return;
    const std::size_t m = size * 6 / 10;
    for (std::size_t k = 0; k < m; ++k)
      edges.emplace_back(static_cast<int>(rng() % size), static_cast<int>(rng() % size));
  }
  void call(Fn f) { labels = f(n, edges); }
  void record(perfpilot::Recorder& r) const { r.add("labels", labels); }
};
PERFPILOT_BENCH(Bench, Fn)
