#include <cstdint>
#include <vector>

// CRC-32 (IEEE 802.3, reflected, as zlib and gzip compute it) of a log record, stored in the
// archive's index to detect corrupted records.
std::uint32_t record_crc32(const std::vector<unsigned char>& record) {
    std::uint32_t crc = 0xFFFFFFFFu;
    for (unsigned char byte : record) {
        crc ^= byte;
        for (int bit = 0; bit < 8; ++bit) {
            if (crc & 1u) {
                crc = (crc >> 1) ^ 0xEDB88320u;
            } else {
                crc >>= 1;
            }
        }
    }
    return crc ^ 0xFFFFFFFFu;
}
