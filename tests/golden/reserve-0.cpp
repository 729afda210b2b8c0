std::vector<int> squares(int n) {
    std::vector<int> out;
    if (n > 0)
        out.resize(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        out[i] = i * i;
    }
    return out;
}
