#include <perfpilot_bench.hpp>
#include <algorithm>
#include <vector>

using Fn = int (*)(const std::vector<long>&, const std::vector<long>&);

// A sorted table with duplicates; about half the queries are in it.
struct Bench {
  std::vector<long> table, queries;
  int hits = 0;

  void setup(std::size_t n, std::mt19937_64& rng) {
    const long span = 2 * static_cast<long>(n) + 2;
    table.resize(n);
    for (auto& t : table) t = static_cast<long>(rng() % span) - span / 2;
    std::sort(table.begin(), table.end());
    queries.resize(n);
    for (auto& q : queries) q = static_cast<long>(rng() % (2 * span)) - span;
  }
  void call(Fn f) { hits = f(table, queries); }
  void record(perfpilot::Recorder& r) const { r.add("hits", hits); }
};
PERFPILOT_BENCH(Bench, Fn)
