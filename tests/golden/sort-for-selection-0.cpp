double median(std::vector<int> v) {
    if (v.empty()) return 0.0;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    int n = v.size();
    if (n % 2 == 1) return v[n / 2];
    return (*std::max_element(v.begin(), v.begin() + n / 2) + v[n / 2]) / 2.0;
}
