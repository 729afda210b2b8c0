#include <string>

// Escape text for an HTML page: & < > " and ' become character references.
std::string escape_html(std::string text) {
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::string entity;
        switch (text[pos]) {
            case '&': entity = "&amp;"; break;
            case '<': entity = "&lt;"; break;
            case '>': entity = "&gt;"; break;
            case '"': entity = "&quot;"; break;
            case '\'': entity = "&#39;"; break;
            default: break;
        }
        if (entity.empty()) {
            ++pos;
        } else {
            text.replace(pos, 1, entity);
            pos += entity.size();
        }
    }
    return text;
}
