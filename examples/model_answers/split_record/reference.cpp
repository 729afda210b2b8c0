#include <algorithm>
#include <string>
#include <vector>

// Split one record of the export feed on commas (the feed never quotes fields). Empty fields
// between two commas are kept, and every record has at least one field.
std::vector<std::string> split_record(const std::string& line) {
    std::vector<std::string> fields;
    fields.reserve(static_cast<std::size_t>(std::count(line.begin(), line.end(), ',')) + 1);
    std::size_t start = 0;
    std::size_t comma = line.find(',');
    while (comma != std::string::npos) {
        fields.emplace_back(line, start, comma - start);
        start = comma + 1;
        comma = line.find(',', start);
    }
    fields.emplace_back(line, start, std::string::npos);
    return fields;
}
