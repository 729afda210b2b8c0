std::vector<int> top_k(std::vector<int> v, int k) {
    std::partial_sort(v.begin(), v.begin() + std::min<std::size_t>(k, v.size()),
                      v.end(), std::greater<int>());
    v.resize(k);
    return v;
}
