int pairs_at_least(const long* a, int n, long t) {
    int count = 0;
    if (n >= 2) {
        // The same count over a sorted copy: only the values matter. Each sum below is of two
        // different positions, a sum the double loop also computed, so no new overflow.
        std::vector<long> sorted_a(a, a + n);
        std::sort(sorted_a.begin(), sorted_a.end());
        std::size_t lo = 0, hi = sorted_a.size() - 1;
        while (lo < hi) {
            if (sorted_a[lo] + sorted_a[hi] >= t) {
                count += static_cast<decltype(count)>(hi - lo);
                --hi;
            } else {
                ++lo;
            }
        }
    }
    return count;
}
