#include <perfpilot_bench.hpp>
#include <string>

using Fn = int (*)(const std::string&, const std::string&);

// Two strings over a four-letter alphabet, the second a little shorter; the recursion is
// exponential in the lengths, so they stay small.
struct Bench {
  static constexpr std::size_t max_size = 12;
  static constexpr std::size_t min_size = 4;
  static std::vector<std::size_t> edge_sizes() { return {0, 1, 2, 3, 5, 8}; }

  std::string a, b;
  int result = 0;

  void setup(std::size_t n, std::mt19937_64& rng) {
    a.resize(n);
    b.resize(n > 2 ? n - 2 : n);
    for (auto& c : a) c = static_cast<char>('a' + rng() % 4);
    for (auto& c : b) c = static_cast<char>('a' + rng() % 4);
  }
  void call(Fn f) { result = f(a, b); }
  void record(perfpilot::Recorder& r) const { r.add("result", result); }
};
PERFPILOT_BENCH(Bench, Fn)
