#include <perfpilot_bench.hpp>
#include <cmath>
#include <vector>

using Fn = std::vector<long long> (*)(const std::vector<int>&, int, int);

// A terrain map of about n cells, a little wider than tall: costs 1 to 9, about one cell in
// six a wall (so some cells are walled off), and the start cell always open. Some sizes
// get a costly band of terrain (cost 50 to 99) across the middle, so paths detour.
struct Bench {
  std::vector<int> cost;
  int rows = 0;
  int cols = 0;
  std::vector<long long> dist;

  void setup(std::size_t n, std::mt19937_64& rng) {
    rows = static_cast<int>(std::sqrt(static_cast<double>(n)));
    cols = rows > 0 ? static_cast<int>(n) / rows : 0;
    cost.assign(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols), 0);
    const bool band = rng() % 2 == 0;
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < cols; ++c) {
        int v = 1 + static_cast<int>(rng() % 9);
        if (band && r == rows / 2) v = 50 + static_cast<int>(rng() % 50);
        if (rng() % 6 == 0) v = -1 - static_cast<int>(rng() % 3);
        cost[static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) +
             static_cast<std::size_t>(c)] = v;
      }
    }
    if (!cost.empty()) cost[0] = 1;
  }
  void call(Fn f) { dist = f(cost, rows, cols); }
  void record(perfpilot::Recorder& r) const { r.add("dist", dist); }
};
PERFPILOT_BENCH(Bench, Fn)
