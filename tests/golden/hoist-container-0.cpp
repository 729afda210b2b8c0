long peaks(const std::vector<int>& v) {
    long total = 0;
    std::vector<int> w;
    for (std::size_t i = 0; i + 4 <= v.size(); ++i) {
        w.assign(v.begin() + i, v.begin() + i + 4);
        std::sort(w.begin(), w.end());
        total += w.back() + w.front();
    }
    return total;
}
