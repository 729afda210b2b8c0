double variance(const std::vector<double>& v) {
    double var = 0;
    const auto v_accumulate = std::accumulate(v.begin(), v.end(), 0.0);
    for (std::size_t i = 0; i < v.size(); ++i) {
        double mean = v_accumulate / v.size();
        var += (v[i] - mean) * (v[i] - mean);
    }
    return var / v.size();
}
