int kinds(const std::vector<std::string>& words) {
    std::vector<std::string> seen;
    std::unordered_set<std::string> seen_set;
    for (const auto& w : words) {
        bool found = !seen_set.insert(w).second;
        if (!found) seen.push_back(w);
    }
    return (int)seen.size();
}
