// perfpilot-corpus: degrees, mst_weight, count_components, heaviest_edge
// Graphs given as edge lists, with union-find, as in a competitive-programming library.
#include <algorithm>
#include <numeric>
#include <vector>

struct Edge {
  int u, v;
  double w;
};

std::vector<int> degrees(int n, const std::vector<Edge>& edges) {
  std::vector<int> deg(n > 0 ? n : 0, 0);
  for (const Edge& e : edges) {
    if (e.u < 0 || e.u >= n || e.v < 0 || e.v >= n) continue;
    ++deg[e.u];
    ++deg[e.v];
  }
  return deg;
}

namespace {
int find_root(std::vector<int>& parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}
}  // namespace

double mst_weight(int n, std::vector<Edge> edges) {
  if (n <= 0) return 0.0;
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.w < b.w; });
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  double total = 0.0;
  for (const Edge& e : edges) {
    if (e.u < 0 || e.u >= n || e.v < 0 || e.v >= n) continue;
    int a = find_root(parent, e.u), b = find_root(parent, e.v);
    if (a != b) {
      parent[a] = b;
      total += e.w;
    }
  }
  return total;
}

int count_components(int n, const std::vector<Edge>& edges) {
  if (n <= 0) return 0;
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  int components = n;
  for (const Edge& e : edges) {
    if (e.u < 0 || e.u >= n || e.v < 0 || e.v >= n) continue;
    int a = find_root(parent, e.u), b = find_root(parent, e.v);
    if (a != b) {
      parent[a] = b;
      --components;
    }
  }
  return components;
}

Edge heaviest_edge(const std::vector<Edge>& edges) {
  Edge best{-1, -1, -1.0};
  for (const Edge& e : edges)
    if (e.w > best.w) best = e;
  return best;
}
