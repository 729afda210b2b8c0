// perfpilot-corpus: bucket_counts, level_histogram, count_at_least, worst_level
// Histograms keyed by enums, as in a logging or metrics module.
#include <array>
#include <map>
#include <string>
#include <vector>

enum Bucket { Low, Mid, High };

enum class Level { Debug, Info, Warning, Error, Fatal };

struct LogLine {
  Level level;
  std::string message;
  long timestamp;
};

std::array<int, 3> bucket_counts(const std::vector<double>& values) {
  std::array<int, 3> counts{0, 0, 0};
  for (double v : values) {
    Bucket b = v < 0.33 ? Low : (v < 0.66 ? Mid : High);
    ++counts[b];
  }
  return counts;
}

std::map<Level, int> level_histogram(const std::vector<LogLine>& lines) {
  std::map<Level, int> h;
  for (const auto& l : lines) ++h[l.level];
  return h;
}

int count_at_least(const std::vector<LogLine>& lines, Level min_level) {
  int n = 0;
  for (const auto& l : lines)
    if (static_cast<int>(l.level) >= static_cast<int>(min_level)) ++n;
  return n;
}

Level worst_level(const std::vector<Level>& levels) {
  Level worst = Level::Debug;
  for (Level l : levels)
    if (static_cast<int>(l) > static_cast<int>(worst)) worst = l;
  return worst;
}
