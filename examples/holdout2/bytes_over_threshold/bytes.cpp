#include <string>

// How many bytes of data (as unsigned values) are greater than limit.
long count_above(const std::string& data, unsigned char limit) {
    long count = 0;
    for (std::size_t i = 0; i < data.size(); ++i)
        if (static_cast<unsigned char>(data[i]) > limit) ++count;
    return count;
}
