#include <string>

// The same loop compiled at -O3 for this function only: the vectoriser then compares 16 or
// 32 bytes per instruction (it needs an epilogue, which -O2's cheap cost model refuses).
__attribute__((optimize("O3")))
long count_above(const std::string& data, unsigned char limit) {
    long count = 0;
    for (std::size_t i = 0; i < data.size(); ++i)
        if (static_cast<unsigned char>(data[i]) > limit) ++count;
    return count;
}
