#include <string>
#include <vector>

// Split one record of the export feed on commas (the feed never quotes fields). Empty fields
// between two commas are kept, and every record has at least one field.
std::vector<std::string> split_record(const std::string& line) {
    std::vector<std::string> fields;
    std::string rest = line;
    std::size_t comma = rest.find(',');
    while (comma != std::string::npos) {
        fields.push_back(rest.substr(0, comma));
        rest = rest.substr(comma + 1);
        comma = rest.find(',');
    }
    fields.push_back(rest);
    return fields;
}
