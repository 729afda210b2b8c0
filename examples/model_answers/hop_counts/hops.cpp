#include <algorithm>
#include <vector>

// Hop count from station 0 to every station of a network given as adjacency lists (links to
// stations that do not exist are ignored); -1 for stations that cannot be reached.
std::vector<int> hop_counts(const std::vector<std::vector<int>>& links) {
    const int stations = static_cast<int>(links.size());
    std::vector<int> hops(stations, -1);
    std::vector<int> visited;
    std::vector<int> frontier;
    if (stations > 0) {
        hops[0] = 0;
        visited.push_back(0);
        frontier.push_back(0);
    }
    int depth = 0;
    while (!frontier.empty()) {
        ++depth;
        std::vector<int> next;
        for (int u : frontier) {
            for (int v : links[u]) {
                if (v < 0 || v >= stations) continue;
                if (std::find(visited.begin(), visited.end(), v) != visited.end()) continue;
                visited.push_back(v);
                hops[v] = depth;
                next.push_back(v);
            }
        }
        frontier = next;
    }
    return hops;
}
