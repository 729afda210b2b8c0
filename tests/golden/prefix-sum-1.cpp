long best_range(const std::vector<long>& a) {
    long best = a.empty() ? 0 : a[0];
    std::vector<unsigned long> prefix_a(a.size() + 1);
    for (std::size_t i2 = 0; i2 < a.size(); ++i2)
        prefix_a[i2 + 1] = prefix_a[i2] + static_cast<unsigned long>(a[i2]);
    for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t j = i; j < a.size(); ++j) {
            long s = 0;
            if (i <= j) s += static_cast<long>(prefix_a[j + 1] - prefix_a[i]);
            if (s > best) best = s;
        }
    return best;
}
