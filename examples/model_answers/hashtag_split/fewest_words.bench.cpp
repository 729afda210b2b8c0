#include <perfpilot_bench.hpp>
#include <string>
#include <vector>

using Fn = int (*)(const std::string&, const std::vector<std::string>&);

// Tags of n letters that split in very many ways: mostly 'a' with a few 'b', over a
// dictionary of short words of a and b (so the recursion branches at every position). One
// tag in three holds a 'c' that no word spells (the answer is then -1, found only after every
// split was tried); some dictionaries hold an empty word, which the function must skip.
struct Bench {
  std::string tag;
  std::vector<std::string> dictionary;
  int words = 0;

  static constexpr std::size_t min_size = 10;
  static constexpr std::size_t max_size = 24;
  static std::vector<std::size_t> edge_sizes() { return {0, 1, 2, 7, 12, 16}; }

  void setup(std::size_t n, std::mt19937_64& rng) {
    tag.assign(n, 'a');
    for (auto& c : tag) {
      if (rng() % 6 == 0) c = 'b';
    }
    if (n > 0 && rng() % 3 == 0) tag[rng() % n] = 'c';
    dictionary = {"a", "aa", "aaa", "aaaa", "b", "ab", "ba", "aab", "abba"};
    if (rng() % 2 == 0) dictionary.insert(dictionary.begin() + static_cast<long>(rng() % 5), "");
    if (rng() % 2 == 0) dictionary.push_back("bb");
  }
  void call(Fn f) { words = f(tag, dictionary); }
  void record(perfpilot::Recorder& r) const { r.add("words", words); }
};
PERFPILOT_BENCH(Bench, Fn)
