// perfpilot-corpus: merge_intervals, total_covered, max_overlap, disjoint_count
// Interval arithmetic over pairs, tuples and ordered sets of a comparable struct.
#include <algorithm>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

struct Interval {
  int lo;
  int hi;
  bool operator<(const Interval& o) const { return lo < o.lo || (lo == o.lo && hi < o.hi); }
};

std::vector<std::pair<int, int>> merge_intervals(std::vector<std::pair<int, int>> v) {
  for (auto& p : v)
    if (p.first > p.second) std::swap(p.first, p.second);
  std::sort(v.begin(), v.end());
  std::vector<std::pair<int, int>> out;
  for (const auto& p : v) {
    if (!out.empty() && p.first <= out.back().second)
      out.back().second = std::max(out.back().second, p.second);
    else
      out.push_back(p);
  }
  return out;
}

long total_covered(const std::set<Interval>& intervals) {
  long total = 0;
  int end = -1;
  bool started = false;
  for (const Interval& iv : intervals) {
    int lo = std::min(iv.lo, iv.hi), hi = std::max(iv.lo, iv.hi);
    if (!started || lo > end) {
      total += hi - lo;
      end = hi;
      started = true;
    } else if (hi > end) {
      total += hi - end;
      end = hi;
    }
  }
  return total;
}

int max_overlap(const std::vector<std::tuple<int, int, double>>& events) {
  std::vector<std::pair<int, int>> points;
  for (const auto& [a, b, weight] : events) {
    (void)weight;
    points.push_back({std::min(a, b), 1});
    points.push_back({std::max(a, b), -1});
  }
  std::sort(points.begin(), points.end());
  int cur = 0, best = 0;
  for (const auto& p : points) {
    cur += p.second;
    best = std::max(best, cur);
  }
  return best;
}

int disjoint_count(const std::vector<Interval>& intervals) {
  int count = 0;
  for (std::size_t i = 0; i < intervals.size(); ++i) {
    bool alone = true;
    for (std::size_t j = 0; j < intervals.size() && alone; ++j)
      if (i != j && intervals[i].lo < intervals[j].hi && intervals[j].lo < intervals[i].hi)
        alone = false;
    count += alone;
  }
  return count;
}
