std::string build(int n) {
    std::string s;
    for (int i = 0; i < n; ++i) {
        s += "ab";
    }
    return s;
}
