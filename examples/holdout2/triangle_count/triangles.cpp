#include <vector>

// Triples i < j < k with adj[i][j], adj[j][k] and adj[i][k] all nonzero. The matrix is square
// (side = number of rows); only entries above the diagonal are read.
long long count_triangles(const std::vector<std::vector<int>>& adj) {
    const std::size_t n = adj.size();
    long long count = 0;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j)
            for (std::size_t k = j + 1; k < n; ++k)
                if (adj[i][j] != 0 && adj[j][k] != 0 && adj[i][k] != 0) ++count;
    return count;
}
