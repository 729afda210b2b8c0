#include <algorithm>
#include <string>
#include <vector>

// Dynamic programming over suffix pairs, one row at a time: O(|a| |b|) instead of exponential.
// Matching characters take the diagonal, as in the recursion (that choice is optimal).
int edit_distance(const std::string& a, const std::string& b) {
    const std::size_t n = a.size(), m = b.size();
    // next[j] = distance of a[i+1..] and b[j..]; cur[j] = distance of a[i..] and b[j..].
    std::vector<int> next(m + 1), cur(m + 1);
    for (std::size_t j = 0; j <= m; ++j) next[j] = static_cast<int>(m - j);
    for (std::size_t i = n; i-- > 0;) {
        cur[m] = static_cast<int>(n - i);
        for (std::size_t j = m; j-- > 0;) {
            if (a[i] == b[j]) cur[j] = next[j + 1];
            else cur[j] = 1 + std::min({next[j], cur[j + 1], next[j + 1]});
        }
        std::swap(cur, next);
    }
    return next[0];
}
