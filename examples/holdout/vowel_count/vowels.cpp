#include <string>

// Number of vowels (either case) in the text.
int count_vowels(const std::string& text) {
    int n = 0;
    for (std::size_t i = 0; i < text.size(); i++) {
        char c = text[i];
        if (std::string("aeiouAEIOU").find(c) != std::string::npos) n++;
    }
    return n;
}
