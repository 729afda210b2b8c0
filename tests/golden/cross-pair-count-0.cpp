long count_pairs_lt(const std::vector<int>& a, const std::vector<int>& b) {
    long c = 0;
    std::vector<int> b_sorted(b.begin(), b.end());
    std::sort(b_sorted.begin(), b_sorted.end());
    for (int x : a) {
        c += b_sorted.end() -
             std::upper_bound(b_sorted.begin(), b_sorted.end(), x);
    }
    return c;
}
