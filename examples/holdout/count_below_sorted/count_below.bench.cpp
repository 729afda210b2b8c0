#include <perfpilot_bench.hpp>
#include <algorithm>
#include <vector>

using Fn = std::vector<int> (*)(const std::vector<int>&, const std::vector<int>&);

// Sorted thresholds with duplicates and negatives; queries spread over and beyond their range.
struct Bench {
  std::vector<int> thresholds, queries, result;

  void setup(std::size_t n, std::mt19937_64& rng) {
    const long span = static_cast<long>(n) + 1;
    thresholds.resize(n);
    for (auto& t : thresholds) t = static_cast<int>(static_cast<long>(rng() % (2 * span)) - span);
    std::sort(thresholds.begin(), thresholds.end());
    queries.resize(n);
    for (auto& q : queries)
      q = static_cast<int>(static_cast<long>(rng() % (3 * span)) - (3 * span) / 2);
  }
  void call(Fn f) { result = f(thresholds, queries); }
  void record(perfpilot::Recorder& r) const { r.add("counts", result); }
};
PERFPILOT_BENCH(Bench, Fn)
