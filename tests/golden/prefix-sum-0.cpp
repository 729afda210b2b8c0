long long total(const std::vector<int>& a, const int *lo, const int *hi, int q) {
    long long all = 0;
    std::vector<unsigned long long> prefix_a(a.size() + 1);
    for (std::size_t i2 = 0; i2 < a.size(); ++i2)
        prefix_a[i2 + 1] = prefix_a[i2] + static_cast<unsigned long long>(a[i2]);
    for (int k = 0; k < q; k++) {
        long long s = 0;
        {
            const int i = lo[k];
            if (i <= hi[k])
                s += static_cast<long long>(prefix_a[hi[k] + 1] - prefix_a[i]);
        }
        all += s;
    }
    return all;
}
