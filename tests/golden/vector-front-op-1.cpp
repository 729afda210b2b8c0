long consume(std::string s) {
    long total = 0;
    std::size_t s_head = 0;
    while (s_head != s.size()) {
        total += s[s_head];
        ++s_head;
    }
    return total;
}
