// Reference: size the result once and append in place.
#include <string>
#include <vector>

std::string join_words(const std::vector<std::string>& words)
{
    std::size_t total = 0;
    for (const auto& w : words)
        total += w.size() + 2;
    std::string out;
    out.reserve(total);
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (i > 0)
            out += ", ";
        out += words[i];
    }
    return out;
}
