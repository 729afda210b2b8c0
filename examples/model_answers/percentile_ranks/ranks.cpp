#include <vector>

// Percentile rank of every exam score: the share, in percent, of all scores strictly below
// it. (A missing score is NaN; nothing is below it and it is below nothing.)
std::vector<double> percentile_ranks(const std::vector<double>& scores) {
    std::vector<double> ranks(scores.size());
    for (std::size_t i = 0; i < scores.size(); ++i) {
        std::size_t below = 0;
        for (double other : scores) {
            if (other < scores[i]) ++below;
        }
        ranks[i] = 100.0 * static_cast<double>(below) / static_cast<double>(scores.size());
    }
    return ranks;
}
