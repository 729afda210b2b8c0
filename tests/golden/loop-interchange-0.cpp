void colscale(std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b,
              int n, int m) {
    for (int j = 0; j < m; ++j) {
        for (int i = 0; i < n; ++i) {
            a[j][i] = b[j][i] * 2.0 + 1.0;
        }
    }
}
