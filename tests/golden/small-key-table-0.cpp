int most_common(const std::string& s) {
    int freq_val[256] = {};
    bool freq_has[256] = {};
    std::size_t freq_size = 0;
    auto freq_at = [&](unsigned char k) -> int& {
        freq_size += !freq_has[k];
        freq_has[k] = true;
        return freq_val[k];
    };
    for (char c : s) ++freq_at(static_cast<unsigned char>(c));
    int best = 0;
    for (int freq_key = std::numeric_limits<char>::min();
         freq_key <= std::numeric_limits<char>::max(); ++freq_key) {
        if (!freq_has[static_cast<unsigned char>(freq_key)]) continue;
        const int& n = freq_val[static_cast<unsigned char>(freq_key)];
        if (n > best) best = n;
    }
    return best * 1000 + (int)freq_size;
}
