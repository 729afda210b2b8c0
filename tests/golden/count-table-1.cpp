int max_occurrence(const std::vector<int>& v) {
    int best = 0, bestc = 0;
    std::unordered_map<int, std::ptrdiff_t> v_counts;
    v_counts.reserve(v.size());
    for (const auto& e : v)
        ++v_counts[e];
    auto v_count = [&v_counts](const int& key) -> std::ptrdiff_t {
        auto at = v_counts.find(key);
        return at == v_counts.end() ? 0 : at->second;
    };
    for (int x : v) {
        int c = v_count(x);
        if (c > bestc || (c == bestc && x < best)) { bestc = c; best = x; }
    }
    return best;
}
