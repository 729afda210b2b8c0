#include <cctype>
#include <string>

// The text in upper case (ASCII letters only change).
std::string shout(const std::string& text) {
    std::string result;
    for (char c : text) {
        char up = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        result = result + up;
    }
    return result;
}
