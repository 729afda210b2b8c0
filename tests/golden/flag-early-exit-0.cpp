int with_letter(const std::vector<std::string>& words, char c) {
    int n = 0;
    for (const auto& w : words) {
        bool has = false;
        for (std::size_t i = 0; i < w.size(); ++i)
            if (w[i] == c) {
                has = true;
                break;
            }
        if (has) ++n;
    }
    return n;
}
