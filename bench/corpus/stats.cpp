// perfpilot-corpus: group_means, summarize, moving_average, Grid::step, Grid::alive_count
// Grouped statistics over samples, a fixed-size summary, and a cellular grid class.
#include <algorithm>
#include <array>
#include <cstddef>
#include <deque>
#include <map>
#include <vector>

struct Sample {
  double value;
  int group;
};

std::map<int, double> group_means(const std::vector<Sample>& samples) {
  std::map<int, std::pair<double, int>> acc;
  for (const auto& s : samples) {
    acc[s.group].first += s.value;
    acc[s.group].second += 1;
  }
  std::map<int, double> means;
  for (const auto& [g, sum_count] : acc) means[g] = sum_count.first / sum_count.second;
  return means;
}

std::array<double, 4> summarize(const std::vector<double>& v) {
  std::array<double, 4> out{0, 0, 0, 0};  // min, max, mean, count
  if (v.empty()) return out;
  out[0] = out[1] = v[0];
  double sum = 0;
  for (double x : v) {
    out[0] = std::min(out[0], x);
    out[1] = std::max(out[1], x);
    sum += x;
  }
  out[2] = sum / v.size();
  out[3] = static_cast<double>(v.size());
  return out;
}

std::vector<double> moving_average(const std::deque<double>& window_source, int width) {
  std::vector<double> out;
  if (width <= 0) return out;
  double sum = 0;
  for (std::size_t i = 0; i < window_source.size(); ++i) {
    sum += window_source[i];
    if (i >= static_cast<std::size_t>(width)) sum -= window_source[i - width];
    if (i + 1 >= static_cast<std::size_t>(width)) out.push_back(sum / width);
  }
  return out;
}

struct Cell {
  bool alive;
  int age;
};

class Grid {
 public:
  Grid(int width, int height) : w_(width), h_(height), cells_(std::size_t(width) * height) {
    for (std::size_t i = 0; i < cells_.size(); ++i) cells_[i].alive = (i * 7919) % 3 == 0;
  }

  void step() {
    std::vector<Cell> next = cells_;
    for (int y = 0; y < h_; ++y)
      for (int x = 0; x < w_; ++x) {
        int n = 0;
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            if (dx == 0 && dy == 0) continue;
            int xx = x + dx, yy = y + dy;
            if (xx >= 0 && xx < w_ && yy >= 0 && yy < h_ && cells_[yy * w_ + xx].alive) ++n;
          }
        Cell& c = next[y * w_ + x];
        c.alive = n == 3 || (c.alive && n == 2);
        c.age = c.alive ? c.age + 1 : 0;
      }
    cells_ = next;
  }

  int alive_count() const {
    int n = 0;
    for (const Cell& c : cells_) n += c.alive;
    return n;
  }

 private:
  int w_, h_;
  std::vector<Cell> cells_;
};
