long long equal_pairs(const std::vector<unsigned>& v) {
    long long same = 0;
    if ((int)v.size() >= 2) {
        // The same count over a sorted copy: equal values form runs.
        std::vector<unsigned> sorted_v(v.begin(), v.begin() + (int)v.size());
        std::sort(sorted_v.begin(), sorted_v.end());
        for (std::size_t lo = 0, hi = 0; lo < sorted_v.size(); lo = hi) {
            while (hi < sorted_v.size() && sorted_v[hi] == sorted_v[lo])
                ++hi;
            same += static_cast<decltype(same)>((hi - lo) * ((hi - lo) - 1));
        }
    }
    return same;
}
