#include <algorithm>
#include <vector>

// Hop distance from `source` to every node of a directed graph given as adjacency lists;
// -1 for nodes it cannot reach.
std::vector<int> hop_distance(const std::vector<std::vector<int>>& adj, int source) {
    std::vector<int> dist(adj.size(), -1);
    if (source < 0 || source >= static_cast<int>(adj.size())) return dist;
    std::vector<int> frontier{source};
    std::vector<int> seen{source};
    dist[source] = 0;
    while (!frontier.empty()) {
        int u = frontier.front();
        frontier.erase(frontier.begin());
        for (int v : adj[u]) {
            if (std::find(seen.begin(), seen.end(), v) == seen.end()) {
                seen.push_back(v);
                dist[v] = dist[u] + 1;
                frontier.push_back(v);
            }
        }
    }
    return dist;
}
