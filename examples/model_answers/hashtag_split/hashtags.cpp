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
    return min_split(tag, 0, dictionary);
}
