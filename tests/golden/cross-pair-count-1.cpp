int below(const long* a, int n, const long* b, int m) {
    int c = 0;
    std::vector<long> b_sorted;
    bool b_sorted_made = false;
    for (int i = 0; i < n; ++i) {
        if (!b_sorted_made) {
            b_sorted.assign(b, b + (m > 0 ? m : 0));
            std::sort(b_sorted.begin(), b_sorted.end());
            b_sorted_made = true;
        }
        c += b_sorted.empty()
                 ? 0
                 : std::upper_bound(b_sorted.begin(), b_sorted.end(), a[i]) -
                       b_sorted.begin();
    }
    return c;
}
