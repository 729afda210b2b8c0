#include <string>
#include <vector>

// "v0,v1,...,vn-1" for the values.
std::string to_csv(const std::vector<long>& values) {
    std::string line;
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i > 0) line = line + ",";
        line = line + std::to_string(values[i]);
    }
    return line;
}
