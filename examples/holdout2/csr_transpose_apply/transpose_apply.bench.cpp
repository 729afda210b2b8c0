#include <perfpilot_bench.hpp>
#include <vector>

using Fn = std::vector<double> (*)(const std::vector<int>&, const std::vector<int>&,
                                   const std::vector<double>&, const std::vector<double>&, int);

// An n-by-n sparse matrix with 1 to 8 nonzeros per row at random columns.
struct Bench {
  std::vector<int> start, col;
  std::vector<double> val, x, y;
  int cols = 0;

  void setup(std::size_t n, std::mt19937_64& rng) {
    cols = static_cast<int>(n);
    start.assign(1, 0);
    col.clear();
    val.clear();
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (std::size_t r = 0; r < n; ++r) {
      const int nnz = 1 + static_cast<int>(rng() % 8);
      for (int k = 0; k < nnz; ++k) {
        col.push_back(static_cast<int>(rng() % n));
        val.push_back(u(rng));
      }
      start.push_back(static_cast<int>(col.size()));
    }
    x.resize(n);
    for (auto& v : x) v = u(rng);
  }
  void call(Fn f) { y = f(start, col, val, x, cols); }
  void record(perfpilot::Recorder& r) const { r.add("y", y); }
};
PERFPILOT_BENCH(Bench, Fn)
