int count_in_ranges(const std::vector<int>& v, const std::vector<std::pair<int, int>>& qs) {
    int hits = 0;
    std::vector<int> v_sorted(v.begin(), v.end());
    std::sort(v_sorted.begin(), v_sorted.end());
    for (auto& q : qs)
        hits += std::max<std::ptrdiff_t>(
            0, std::upper_bound(v_sorted.begin(), v_sorted.end(), q.second) -
                   std::lower_bound(v_sorted.begin(), v_sorted.end(), q.first));
    return hits;
}
