long pairs_below(const std::vector<int>& v, int limit) {
    long c = 0;
    if (v.size() >= 2) {
        // The same count over a sorted copy: only the values matter. Each sum below is of two
        // different positions, a sum the double loop also computed, so no new overflow.
        std::vector<int> sorted_v(v.begin(), v.end());
        std::sort(sorted_v.begin(), sorted_v.end());
        std::size_t lo = 0, hi = sorted_v.size() - 1;
        while (lo < hi) {
            if (sorted_v[lo] + sorted_v[hi] < limit) {
                c += static_cast<decltype(c)>(hi - lo);
                ++lo;
            } else {
                --hi;
            }
        }
    }
    return c;
}
