int median(std::vector<int> v) {
    std::sort(v.data(), v.data() + v.size());
    return v.empty() ? 0 : v[v.size() / 2];
}
