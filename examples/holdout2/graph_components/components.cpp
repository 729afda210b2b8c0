#include <utility>
#include <vector>

// label[v] = the smallest vertex id in v's connected component, for vertices 0..n-1 of an
// undirected graph given as an edge list.
std::vector<int> component_labels(int n, const std::vector<std::pair<int, int>>& edges) {
    std::vector<int> label(n);
    for (int v = 0; v < n; ++v) label[v] = v;
    bool changed = true;
    while (changed) {
        changed = false;
        for (const auto& e : edges) {
            const int a = e.first, b = e.second;
            if (label[a] < label[b]) {
                label[b] = label[a];
                changed = true;
            } else if (label[b] < label[a]) {
                label[a] = label[b];
                changed = true;
            }
        }
    }
    return label;
}
