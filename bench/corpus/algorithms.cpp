// perfpilot-corpus: max_of_all, binary_search, merge_sort, prefix_total, matmul, count_below, evens_into, edge_count, UnionFind::sets, MinStack::minimum
// Shapes of an algorithms collection: file-level using-declarations, function templates with
// callers, index pairs l/r, sizes named N, flattened matrices in vectors, output containers by
// pointer, loop bounds that are not named like sizes, and classes filled through their methods.
#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

namespace search {
int binary_search(const int* arr, int l, int r, int x);
}
namespace sorting {
void merge_sort(std::vector<int>& a, int l, int r);
}
using search::binary_search;
using sorting::merge_sort;
using std::vector;

template <class T>
T max_of_all(const vector<T>& v) {
  T best{};
  for (const T& x : v)
    if (best < x) best = x;
  return best;
}

long largest_reading(const vector<long>& readings) { return max_of_all(readings); }

int search::binary_search(const int* arr, int l, int r, int x) {
  while (l <= r) {
    int m = l + (r - l) / 2;
    if (arr[m] == x) return m;
    if (arr[m] < x) l = m + 1;
    else r = m - 1;
  }
  return -1;
}

void sorting::merge_sort(std::vector<int>& a, int l, int r) {
  if (l >= r) return;
  int m = l + (r - l) / 2;
  merge_sort(a, l, m);
  merge_sort(a, m + 1, r);
  std::vector<int> tmp;
  tmp.reserve(static_cast<std::size_t>(r - l + 1));
  int i = l, j = m + 1;
  while (i <= m && j <= r) tmp.push_back(a[i] <= a[j] ? a[i++] : a[j++]);
  while (i <= m) tmp.push_back(a[i++]);
  while (j <= r) tmp.push_back(a[j++]);
  std::copy(tmp.begin(), tmp.end(), a.begin() + l);
}

long prefix_total(const int arr[], int N) {
  long total = 0, running = 0;
  for (int i = 0; i < N; ++i) {
    running += arr[i];
    total += running;
  }
  return total;
}

void matmul(const vector<double>& a, const vector<double>& b, vector<double>& c, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double s = 0;
      for (std::size_t k = 0; k < n; ++k) s += a[i * n + k] * b[k * n + j];
      c[i * n + j] = s;
    }
}

int count_below(const vector<int>& v, int k, int limit) {
  int c = 0;
  for (int i = 0; i < k; ++i)
    if (v[i] < limit) ++c;
  return c;
}

void evens_into(const vector<int>& in, vector<int>* out) {
  for (int x : in)
    if (x % 2 == 0) out->push_back(x);
}

int edge_count(const vector<vector<int>>& adj, int n) {
  int e = 0;
  for (int u = 0; u < n; ++u) e += static_cast<int>(adj[u].size());
  return e / 2;
}

class UnionFind {
 public:
  explicit UnionFind(int n) : parent_(static_cast<std::size_t>(n)), size_(parent_.size(), 1) {
    std::iota(parent_.begin(), parent_.end(), 0);
  }
  int find(int x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }
  void unite(int a, int b) {
    a = find(a);
    b = find(b);
    if (a == b) return;
    if (size_[a] < size_[b]) std::swap(a, b);
    parent_[b] = a;
    size_[a] += size_[b];
  }
  int sets() const {
    int s = 0;
    for (std::size_t i = 0; i < parent_.size(); ++i) s += parent_[i] == static_cast<int>(i);
    return s;
  }

 private:
  vector<int> parent_;
  vector<int> size_;
};

class MinStack {
 public:
  void push(int x) {
    items_.push_back(x);
    mins_.push_back(mins_.empty() ? x : std::min(x, mins_.back()));
  }
  void pop() {
    if (items_.empty()) return;
    items_.pop_back();
    mins_.pop_back();
  }
  std::size_t size() const { return items_.size(); }
  int minimum() const {
    int m = items_.empty() ? 0 : items_[0];
    for (int x : items_) m = std::min(m, x);
    return m;
  }

 private:
  vector<int> items_;
  vector<int> mins_;
};
