#include <algorithm>
#include <vector>

// Hop count from station 0 to every station of a network given as adjacency lists (links to
// stations that do not exist are ignored); -1 for stations that cannot be reached.
std::vector<int> hop_counts(const std::vector<std::vector<int>>& links) {
    const int stations = static_cast<int>(links.size());
    std::vector<int> hops(stations, -1);
    // hops[v] != -1 already says "visited": no list to search. One array serves as the
    // queue; stations are appended level by level, in the same order as before.
    std::vector<int> queue;
    queue.reserve(static_cast<std::size_t>(stations));
    if (stations > 0) {
        hops[0] = 0;
        queue.push_back(0);
    }
    for (std::size_t head = 0; head < queue.size(); ++head) {
        const int u = queue[head];
        const int depth = hops[u] + 1;
        for (int v : links[u]) {
            if (v < 0 || v >= stations || hops[v] != -1) continue;
            hops[v] = depth;
            queue.push_back(v);
        }
    }
    return hops;
}
