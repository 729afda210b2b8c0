#include <cstdint>
#include <vector>

// Each row becomes a bitset of its nonzero entries; for every edge i-j (i < j) the common
// neighbours k > j are a popcount of two rows ANDed, 64 candidates at a time.
long long count_triangles(const std::vector<std::vector<int>>& adj) {
    const std::size_t n = adj.size();
    const std::size_t words = (n + 63) / 64;
    std::vector<std::uint64_t> bits(n * words, 0);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t k = i + 1; k < n; ++k)
            if (adj[i][k] != 0) bits[i * words + k / 64] |= std::uint64_t{1} << (k % 64);
    long long count = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t* bi = &bits[i * words];
        for (std::size_t j = i + 1; j < n; ++j) {
            if (adj[i][j] == 0) continue;
            const std::uint64_t* bj = &bits[j * words];
            // Row j only holds k > j, so the AND already excludes k <= j.
            for (std::size_t w = (j + 1) / 64; w < words; ++w)
                count += __builtin_popcountll(bi[w] & bj[w]);
        }
    }
    return count;
}
