#include <perfpilot_bench.hpp>
#include <vector>

using Fn = void (*)(int, const int*, const int*, const double*, const double*, double*);

// A square sparse matrix with 0 to 15 nonzeros per row at random columns.
struct Bench {
  int rows = 0;
  std::vector<int> start, cols;
  std::vector<double> vals, x, y;

  void setup(std::size_t n, std::mt19937_64& rng) {
    rows = static_cast<int>(n);
    start.assign(1, 0);
    cols.clear();
    vals.clear();
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int r = 0; r < rows; ++r) {
      int nnz = static_cast<int>(rng() % 16);
      for (int k = 0; k < nnz; ++k) {
        cols.push_back(static_cast<int>(rng() % n));
        vals.push_back(u(rng));
      }
      start.push_back(static_cast<int>(cols.size()));
    }
    x.resize(n);
    for (auto& v : x) v = u(rng);
    y.assign(n, 0.0);
  }
  void reset() { y.assign(y.size(), 0.0); }
  void call(Fn f) { f(rows, start.data(), cols.data(), vals.data(), x.data(), y.data()); }
  void record(perfpilot::Recorder& r) const { r.add("y", y); }
};
PERFPILOT_BENCH(Bench, Fn)
