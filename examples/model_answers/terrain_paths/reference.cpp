#include <climits>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

// Cheapest cost of walking from the top-left cell to every cell of a terrain map (moves to the
// four neighbours; entering a cell costs its terrain value; a negative value is a wall that
// cannot be entered). cost is row-major, rows * cols values. Cells that cannot be reached keep
// LLONG_MAX.
std::vector<long long> travel_costs(const std::vector<int>& cost, int rows, int cols) {
    const int cells = rows * cols;
    std::vector<long long> dist(cells, LLONG_MAX);

    // Dijkstra with a binary heap: (distance, cell), smallest distance on top. Stale entries
    // (a cell pushed again with a better distance) are skipped when popped.
    using Entry = std::pair<long long, int>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
    if (cells > 0) {
        dist[0] = 0;
        heap.emplace(0, 0);
    }
    const int dr[4] = {-1, 1, 0, 0};
    const int dc[4] = {0, 0, -1, 1};
    while (!heap.empty()) {
        const auto [d, u] = heap.top();
        heap.pop();
        if (d != dist[u]) continue;
        const int r = u / cols;
        const int col = u % cols;
        for (int k = 0; k < 4; ++k) {
            const int nr = r + dr[k];
            const int nc = col + dc[k];
            if (nr < 0 || nr >= rows || nc < 0 || nc >= cols) continue;
            const int v = nr * cols + nc;
            if (cost[v] < 0) continue;
            const long long nd = d + cost[v];
            if (nd < dist[v]) {
                dist[v] = nd;
                heap.emplace(nd, v);
            }
        }
    }
    return dist;
}
