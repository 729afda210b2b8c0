long long below(std::vector<int> v, const std::vector<int>& queries) {
    std::sort(v.begin(), v.end());
    long long total = 0;
    for (int q : queries) {
        int c = std::lower_bound(v.begin(), v.end(), q) - v.begin();
        total += c;
    }
    return total;
}
