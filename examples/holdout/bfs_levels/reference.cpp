#include <vector>

// The distance array doubles as the visited set, and the queue is a vector with a head index.
std::vector<int> hop_distance(const std::vector<std::vector<int>>& adj, int source) {
    std::vector<int> dist(adj.size(), -1);
    if (source < 0 || source >= static_cast<int>(adj.size())) return dist;
    std::vector<int> queue;
    queue.reserve(adj.size());
    queue.push_back(source);
    dist[source] = 0;
    for (std::size_t head = 0; head < queue.size(); ++head) {
        int u = queue[head];
        for (int v : adj[u]) {
            if (dist[v] < 0) {
                dist[v] = dist[u] + 1;
                queue.push_back(v);
            }
        }
    }
    return dist;
}
