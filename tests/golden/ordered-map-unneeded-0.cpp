int max_count(const std::vector<int> &v) {
    std::unordered_map<int, int> counts;
    for (int x : v) counts[x]++;
    int best = 0, distinct = 0;
    for (const auto &kv : counts) {
        if (kv.second > best) best = kv.second;
        ++distinct;
    }
    return best * 1000 + distinct;
}
