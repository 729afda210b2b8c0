long letters(const std::vector<std::string>& v) {
    long n = 0;
    for (const std::string& s : v) n += (long)s.size();
    return n;
}
