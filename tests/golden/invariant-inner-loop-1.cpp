std::vector<double> spread(const std::vector<double>& v) {
    std::vector<double> out(v.size());
    double mean = 0;
    if (!v.empty()) {
        for (std::size_t j = 0; j < v.size(); ++j) mean += v[j];
        mean /= v.size();
    }
    for (std::size_t i = 0; i < v.size(); ++i) {
        out[i] = (v[i] - mean) * (v[i] - mean);
    }
    return out;
}
