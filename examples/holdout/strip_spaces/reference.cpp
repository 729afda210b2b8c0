#include <algorithm>
#include <string>

// Erase-remove: every kept character moves once.
std::string strip_spaces(std::string text) {
    text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
    return text;
}
