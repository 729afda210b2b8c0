std::vector<int> per_query(const std::vector<int>& v, const std::vector<int>& lo,
                           const std::vector<int>& hi) {
    std::vector<int> out;
    std::vector<int> v_sorted(v.begin(), v.end());
    std::sort(v_sorted.begin(), v_sorted.end());
    for (std::size_t k = 0; k < lo.size(); ++k) {
        int n = 0;
        n += std::lower_bound(v_sorted.begin(), v_sorted.end(), lo[k]) ==
                     v_sorted.end()
                 ? 0
                 : std::max<std::ptrdiff_t>(
                       0, std::lower_bound(v_sorted.begin(), v_sorted.end(),
                                           hi[k]) -
                              std::lower_bound(v_sorted.begin(), v_sorted.end(),
                                               lo[k]));
        out.push_back(n);
    }
    return out;
}
