#include <perfpilot_bench.hpp>
#include <vector>

using Fn = std::vector<double> (*)(const std::vector<int>&, const std::vector<int>&,
                                   const std::vector<double>&, const std::vector<double>&, int);

// n rows, about 8n triples in random order, a few with rows out of range (ignored by both).
struct Bench {
  std::vector<int> row, col;
  std::vector<double> val, x, y;
  int nrows = 0;

  void setup(std::size_t n, std::mt19937_64& rng) {
    nrows = static_cast<int>(n);
    std::size_t nnz = 8 * n;
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    row.resize(nnz);
    col.resize(nnz);
    val.resize(nnz);
    for (std::size_t k = 0; k < nnz; ++k) {
      row[k] = static_cast<int>(rng() % (n + 1)) - (k % 97 == 0 ? 1 : 0);
      col[k] = static_cast<int>(rng() % n);
      val[k] = u(rng);
    }
    x.resize(n);
    for (auto& v : x) v = u(rng);
  }
  void call(Fn f) { y = f(row, col, val, x, nrows); }
  void record(perfpilot::Recorder& r) const { r.add("y", y); }
};
PERFPILOT_BENCH(Bench, Fn)
