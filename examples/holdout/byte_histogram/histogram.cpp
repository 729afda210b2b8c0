#include <algorithm>
#include <string>
#include <vector>

// How often each byte value occurs in the text.
std::vector<int> byte_histogram(const std::string& text) {
    std::vector<int> counts(256, 0);
    for (int b = 0; b < 256; ++b) {
        counts[b] = static_cast<int>(std::count_if(text.begin(), text.end(), [b](char c) {
            return static_cast<unsigned char>(c) == b;
        }));
    }
    return counts;
}
