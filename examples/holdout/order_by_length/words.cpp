#include <string>
#include <vector>

// Order words by length, shortest first, keeping the original order among equal lengths.
void order_by_length(std::vector<std::string>& words) {
    for (std::size_t i = 1; i < words.size(); ++i) {
        std::size_t j = i;
        while (j > 0 && words[j - 1].size() > words[j].size()) {
            std::string tmp = words[j];
            words[j] = words[j - 1];
            words[j - 1] = tmp;
            --j;
        }
    }
}
