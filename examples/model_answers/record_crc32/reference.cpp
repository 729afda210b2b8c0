#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

// Slicing-by-8 tables: t[0] is the classic byte table (the bitwise loop run on one byte);
// t[k][i] advances t[k - 1][i] by one more zero byte.
struct CrcTables {
    std::uint32_t t[8][256];
};

// Built at compile time (C++17 constexpr loops), so no code runs at load or first call.
constexpr CrcTables make_crc_tables() {
    CrcTables tables{};
    auto& t = tables.t;
    for (std::uint32_t i = 0; i < 256; ++i) {
        std::uint32_t c = i;
        for (int bit = 0; bit < 8; ++bit) c = (c & 1u) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
        t[0][i] = c;
    }
    for (std::size_t k = 1; k < 8; ++k) {
        for (std::size_t i = 0; i < 256; ++i) {
            t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFFu];
        }
    }
    return tables;
}

}  // namespace

// CRC-32 (IEEE 802.3, reflected, as zlib and gzip compute it) of a log record, stored in the
// archive's index to detect corrupted records.
std::uint32_t record_crc32(const std::vector<unsigned char>& record) {
    static constexpr CrcTables kTables = make_crc_tables();
    const unsigned char* p = record.data();
    std::size_t left = record.size();
    std::uint32_t crc = 0xFFFFFFFFu;
    // Eight bytes per step: fold the first four into the CRC, then look all eight up at once.
    while (left >= 8) {
        const std::uint32_t lo = crc ^ (static_cast<std::uint32_t>(p[0]) |
                                        static_cast<std::uint32_t>(p[1]) << 8 |
                                        static_cast<std::uint32_t>(p[2]) << 16 |
                                        static_cast<std::uint32_t>(p[3]) << 24);
        crc = kTables.t[7][lo & 0xFFu] ^ kTables.t[6][(lo >> 8) & 0xFFu] ^
              kTables.t[5][(lo >> 16) & 0xFFu] ^ kTables.t[4][lo >> 24] ^
              kTables.t[3][p[4]] ^ kTables.t[2][p[5]] ^ kTables.t[1][p[6]] ^ kTables.t[0][p[7]];
        p += 8;
        left -= 8;
    }
    // The last few bytes one at a time.
    while (left-- > 0) crc = kTables.t[0][(crc ^ *p++) & 0xFFu] ^ (crc >> 8);
    return crc ^ 0xFFFFFFFFu;
}
