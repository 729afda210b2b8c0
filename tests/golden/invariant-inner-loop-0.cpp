std::vector<double> centered(const std::vector<double>& x) {
    std::vector<double> out(x.size());
    double sum = 0;
    if (!x.empty())
        for (std::size_t j = 0; j < x.size(); ++j) sum += x[j];
    for (std::size_t i = 0; i < x.size(); ++i) {
        out[i] = x[i] - sum / x.size();
    }
    return out;
}
