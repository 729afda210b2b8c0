std::string join(int n) {
    std::string s;
    for (int i = 0; i < n; ++i) {
        s += "x";
    }
    return s;
}
