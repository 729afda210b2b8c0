#include <utility>
#include <vector>

// Union-find with path halving, always keeping the smaller id as the root: each root is then
// its component's smallest vertex, the label the propagation converges to.
std::vector<int> component_labels(int n, const std::vector<std::pair<int, int>>& edges) {
    std::vector<int> parent(n);
    for (int v = 0; v < n; ++v) parent[v] = v;
    auto find = [&parent](int v) {
        while (parent[v] != v) {
            parent[v] = parent[parent[v]];
            v = parent[v];
        }
        return v;
    };
    for (const auto& e : edges) {
        int a = find(e.first), b = find(e.second);
        if (a == b) continue;
        if (a < b) parent[b] = a;
        else parent[a] = b;
    }
    std::vector<int> label(n);
    for (int v = 0; v < n; ++v) label[v] = find(v);
    return label;
}
