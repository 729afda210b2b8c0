int first_at_least(std::vector<long> v, long q) {
    std::sort(v.begin(), v.end());
    int at = -1;
    {
        auto pos = std::lower_bound(v.begin(), v.end(), q);
        if (pos != v.end()) {
            int i = static_cast<int>(pos - v.begin());
            at = i;
        }
    }
    return at;
}
