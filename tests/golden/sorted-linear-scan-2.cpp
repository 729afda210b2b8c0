long known(std::vector<std::string> names, const std::vector<std::string>& asked) {
    std::sort(names.begin(), names.end());
    long hits = 0;
    for (const std::string& a : asked)
        if (std::binary_search(names.begin(), names.end(), a)) ++hits;
    return hits;
}
