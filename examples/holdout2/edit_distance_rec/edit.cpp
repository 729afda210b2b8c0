#include <algorithm>
#include <string>

static int dist_from(const std::string& a, std::size_t i, const std::string& b, std::size_t j) {
    if (i == a.size()) return static_cast<int>(b.size() - j);
    if (j == b.size()) return static_cast<int>(a.size() - i);
    if (a[i] == b[j]) return dist_from(a, i + 1, b, j + 1);
    return 1 + std::min({dist_from(a, i + 1, b, j), dist_from(a, i, b, j + 1),
                         dist_from(a, i + 1, b, j + 1)});
}

// Levenshtein distance: fewest single-character insertions, deletions and substitutions.
int edit_distance(const std::string& a, const std::string& b) {
    return dist_from(a, 0, b, 0);
}
