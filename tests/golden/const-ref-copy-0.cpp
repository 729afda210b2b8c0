double total(const std::vector<std::vector<double>>& m) {
    double tot = 0;
    for (std::size_t i = 0; i < m.size(); ++i) {
        const std::vector<double>& row = m[i];
        for (double x : row) tot += x;
    }
    return tot;
}
