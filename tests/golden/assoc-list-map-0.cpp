int most(const std::vector<std::string>& words) {
    std::vector<std::pair<std::string, int>> freq;
    std::unordered_map<std::string, std::size_t> freq_index;
    for (const auto& w : words) {
        bool found = false;
        {
            auto freq_at = freq_index.find(w);
            if (freq_at != freq_index.end()) {
                auto& p = freq[freq_at->second];
                ++p.second;
                found = true;
            }
        }
        if (!found) {
            freq.push_back({w, 1});
            freq_index.emplace(freq.back().first, freq.size() - 1);
        }
    }
    int best = 0;
    for (auto& p : freq) best = std::max(best, p.second);
    return best;
}
