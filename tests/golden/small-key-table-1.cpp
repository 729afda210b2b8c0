long weight(const std::vector<std::uint8_t>& bytes) {
    long hist_val[256] = {};
    for (std::size_t i = 0; i < bytes.size(); ++i)
        hist_val[static_cast<unsigned char>(bytes[i])] += 2;
    return hist_val[0] + hist_val[255];
}
