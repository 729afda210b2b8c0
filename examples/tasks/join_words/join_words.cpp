// Join words with ", ": each step copies the whole result so far.
#include <string>
#include <vector>

std::string join_words(const std::vector<std::string>& words)
{
    std::string out;
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (i > 0)
            out = out + ", ";
        out = out + words[i];
    }
    return out;
}
