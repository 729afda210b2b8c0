long running_median_sum(const std::vector<int>& xs) {
    std::vector<int> seen;
    long acc = 0;
    for (int x : xs) {
        seen.insert(std::upper_bound(seen.begin(), seen.end(), x), x);
        acc += seen[seen.size() / 2];
    }
    return acc;
}
