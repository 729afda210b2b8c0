#include <cctype>
#include <string>
#include <utility>
#include <vector>

// The word (maximal run of ASCII letters, case kept) that occurs most often; on ties the one
// seen first; empty when there are no words.
std::string top_word(const std::string& text) {
    std::vector<std::pair<std::string, int>> counts;
    std::string word;
    for (std::size_t i = 0; i <= text.size(); ++i) {
        const bool letter = i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]));
        if (letter) {
            word += text[i];
            continue;
        }
        if (word.empty()) continue;
        bool found = false;
        for (auto& wc : counts) {
            if (wc.first == word) {
                wc.second++;
                found = true;
                break;
            }
        }
        if (!found) counts.push_back({word, 1});
        word.clear();
    }
    std::string best;
    int best_count = 0;
    for (const auto& wc : counts) {
        if (wc.second > best_count) {
            best = wc.first;
            best_count = wc.second;
        }
    }
    return best;
}
