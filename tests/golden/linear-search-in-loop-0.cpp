int hits(const std::vector<int> &seen, int n) {
    int c = 0;
    auto seen_sorted = seen;
    std::sort(seen_sorted.begin(), seen_sorted.end());
    for (int i = 0; i < n; ++i) {
        if (std::binary_search(seen_sorted.begin(), seen_sorted.end(), i)) c++;
    }
    return c;
}
