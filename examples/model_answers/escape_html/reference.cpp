#include <string>

// The character reference for c, or nullptr when c is written as is.
static const char* html_entity(char c) {
    switch (c) {
        case '&': return "&amp;";
        case '<': return "&lt;";
        case '>': return "&gt;";
        case '"': return "&quot;";
        case '\'': return "&#39;";
        default: return nullptr;
    }
}

// Escape text for an HTML page: & < > " and ' become character references.
std::string escape_html(std::string text) {
    // Build the result in one pass instead of shifting the tail of text on every replacement.
    std::string out;
    out.reserve(text.size() + text.size() / 8);
    for (const char c : text) {
        if (const char* entity = html_entity(c)) {
            out += entity;
        } else {
            out += c;
        }
    }
    return out;
}
