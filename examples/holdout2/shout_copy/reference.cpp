#include <cctype>
#include <string>

// Appends in place into one buffer sized once, instead of copying the whole prefix each time.
std::string shout(const std::string& text) {
    std::string result(text.size(), '\0');
    for (std::size_t i = 0; i < text.size(); ++i)
        result[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[i])));
    return result;
}
