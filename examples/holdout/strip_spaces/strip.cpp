#include <string>

// The text with every space character removed.
std::string strip_spaces(std::string text) {
    std::size_t at = text.find(' ');
    while (at != std::string::npos) {
        text.erase(at, 1);
        at = text.find(' ', at);
    }
    return text;
}
