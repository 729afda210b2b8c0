#include <cctype>
#include <string>
#include <unordered_map>
#include <vector>

// A hash map from word to its slot in first-seen order: O(1) lookups, and the final scan in
// first-seen order keeps the original tie rule.
std::string top_word(const std::string& text) {
    std::unordered_map<std::string, std::size_t> slot;
    std::vector<std::string> order;
    std::vector<int> counts;
    std::string word;
    for (std::size_t i = 0; i <= text.size(); ++i) {
        const bool letter = i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]));
        if (letter) {
            word += text[i];
            continue;
        }
        if (word.empty()) continue;
        auto it = slot.find(word);
        if (it == slot.end()) {
            slot.emplace(word, order.size());
            order.push_back(word);
            counts.push_back(1);
        } else {
            counts[it->second]++;
        }
        word.clear();
    }
    std::size_t best = 0;
    int best_count = 0;
    for (std::size_t k = 0; k < counts.size(); ++k)
        if (counts[k] > best_count) {
            best = k;
            best_count = counts[k];
        }
    return best_count > 0 ? order[best] : std::string();
}
