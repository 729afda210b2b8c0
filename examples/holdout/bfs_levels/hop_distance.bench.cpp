#include <perfpilot_bench.hpp>
#include <vector>

using Fn = std::vector<int> (*)(const std::vector<std::vector<int>>&, int);

// A random directed graph, 0 to 5 edges per node (some self loops and repeats), from node 0.
struct Bench {
  std::vector<std::vector<int>> adj;
  std::vector<int> dist;

  void setup(std::size_t n, std::mt19937_64& rng) {
    adj.assign(n, {});
    for (std::size_t u = 0; u < n; ++u) {
      int deg = static_cast<int>(rng() % 6);
      for (int k = 0; k < deg; ++k) adj[u].push_back(static_cast<int>(rng() % n));
    }
  }
  void call(Fn f) { dist = f(adj, 0); }
  void record(perfpilot::Recorder& r) const { r.add("dist", dist); }
};
PERFPILOT_BENCH(Bench, Fn)
