#include <string>

namespace {
// A 256-entry table answers "is this byte a vowel" with one load and no branch.
struct VowelTable {
    unsigned char is[256] = {};
    VowelTable() {
        for (const char* p = "aeiouAEIOU"; *p; ++p) is[static_cast<unsigned char>(*p)] = 1;
    }
};
const VowelTable kVowels;
}  // namespace

int count_vowels(const std::string& text) {
    int n = 0;
    for (char c : text) n += kVowels.is[static_cast<unsigned char>(c)];
    return n;
}
