void sort_values(std::vector<int> &v) {
    std::sort(v.begin(), v.end());
}
