std::vector<int> letter_counts(const std::string& text) {
    std::vector<int> out(26, 0);
    std::ptrdiff_t text_counts[256] = {};
    for (unsigned char byte : text) ++text_counts[byte];
    for (char c = 'a'; c <= 'z'; ++c) out[c - 'a'] = (int)text_counts[(unsigned char)c];
    return out;
}
