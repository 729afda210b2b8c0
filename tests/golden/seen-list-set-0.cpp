std::vector<int> distinct(const std::vector<int>& v) {
    std::vector<int> seen;
    std::unordered_set<int> seen_set;
    for (int x : v) {
        if (seen_set.insert(x).second) seen.push_back(x);
    }
    return seen;
}
