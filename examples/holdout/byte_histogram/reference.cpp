#include <string>
#include <vector>

// One pass: each byte increments its own bucket.
std::vector<int> byte_histogram(const std::string& text) {
    std::vector<int> counts(256, 0);
    for (char c : text) ++counts[static_cast<unsigned char>(c)];
    return counts;
}
