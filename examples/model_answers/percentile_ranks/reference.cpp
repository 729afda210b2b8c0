#include <algorithm>
#include <cmath>
#include <vector>

// Percentile rank of every exam score: the share, in percent, of all scores strictly below
// it. (A missing score is NaN; nothing is below it and it is below nothing.)
std::vector<double> percentile_ranks(const std::vector<double>& scores) {
    // Sort the comparable scores once (NaN has no place in a sorted order); the count of
    // scores strictly below s is then the position of the first one not less than s.
    std::vector<double> sorted;
    sorted.reserve(scores.size());
    for (double s : scores) {
        if (!std::isnan(s)) sorted.push_back(s);
    }
    std::sort(sorted.begin(), sorted.end());

    std::vector<double> ranks(scores.size());
    for (std::size_t i = 0; i < scores.size(); ++i) {
        std::size_t below = 0;
        if (!std::isnan(scores[i])) {
            below = static_cast<std::size_t>(
                std::lower_bound(sorted.begin(), sorted.end(), scores[i]) - sorted.begin());
        }
        ranks[i] = 100.0 * static_cast<double>(below) / static_cast<double>(scores.size());
    }
    return ranks;
}
