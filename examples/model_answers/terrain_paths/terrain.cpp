#include <climits>
#include <vector>

// Cheapest cost of walking from the top-left cell to every cell of a terrain map (moves to the
// four neighbours; entering a cell costs its terrain value; a negative value is a wall that
// cannot be entered). cost is row-major, rows * cols values. Cells that cannot be reached keep
// LLONG_MAX.
std::vector<long long> travel_costs(const std::vector<int>& cost, int rows, int cols) {
    const int cells = rows * cols;
    std::vector<long long> dist(cells, LLONG_MAX);
    std::vector<bool> done(cells, false);
    if (cells > 0) dist[0] = 0;
    const int dr[4] = {-1, 1, 0, 0};
    const int dc[4] = {0, 0, -1, 1};
    for (int iter = 0; iter < cells; ++iter) {
        // The closest cell not finished yet.
        int u = -1;
        for (int c = 0; c < cells; ++c) {
            if (!done[c] && dist[c] != LLONG_MAX && (u < 0 || dist[c] < dist[u])) u = c;
        }
        if (u < 0) break;  // the rest is walled off
        done[u] = true;
        const int r = u / cols;
        const int col = u % cols;
        for (int k = 0; k < 4; ++k) {
            const int nr = r + dr[k];
            const int nc = col + dc[k];
            if (nr < 0 || nr >= rows || nc < 0 || nc >= cols) continue;
            const int v = nr * cols + nc;
            if (cost[v] < 0 || done[v]) continue;
            if (dist[u] + cost[v] < dist[v]) dist[v] = dist[u] + cost[v];
        }
    }
    return dist;
}
