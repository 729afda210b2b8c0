int occurrences(const std::string& text, const std::string& word) {
    int c = 0;
    for (std::size_t i = 0; i + word.size() <= text.size(); ++i)
        if (text.compare(i, word.size(), word) == 0) ++c;
    return c;
}
