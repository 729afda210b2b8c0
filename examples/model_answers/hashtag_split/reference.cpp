#include <string>
#include <vector>

// Fewest dictionary words that spell text from pos to the end, or -1 when it cannot be done.
int min_split(const std::string& text, std::size_t pos, const std::vector<std::string>& dict) {
    if (pos == text.size()) return 0;
    int best = -1;
    for (const std::string& word : dict) {
        if (word.empty() || text.compare(pos, word.size(), word) != 0) continue;
        const int rest = min_split(text, pos + word.size(), dict);
        if (rest >= 0 && (best < 0 || rest + 1 < best)) best = rest + 1;
    }
    return best;
}

// Hashtag splitting for search: the fewest dictionary words that spell the tag exactly
// ("bigdataday" -> big data day), or -1 when the tag cannot be spelled from the dictionary.
int fewest_words(const std::string& tag, const std::vector<std::string>& dictionary) {
    // The recursion solves the same suffix again and again; solve each suffix once, from
    // the shortest up. best[i] is the answer for tag[i..] (-1: cannot be spelled).
    const std::size_t n = tag.size();
    std::vector<int> best(n + 1, -1);
    best[n] = 0;
    for (std::size_t i = n; i-- > 0;) {
        for (const std::string& word : dictionary) {
            if (word.empty() || tag.compare(i, word.size(), word) != 0) continue;
            const int rest = best[i + word.size()];
            if (rest >= 0 && (best[i] < 0 || rest + 1 < best[i])) best[i] = rest + 1;
        }
    }
    return best[0];
}
