#include <algorithm>
#include <string>
#include <vector>

// A stable O(n log n) sort on the length; strings are moved, never copied.
void order_by_length(std::vector<std::string>& words) {
    std::stable_sort(words.begin(), words.end(),
                     [](const std::string& a, const std::string& b) { return a.size() < b.size(); });
}
