void show(int n) {
    std::ios::sync_with_stdio(false);
    for (int i = 0; i < n; ++i) {
        std::cout << i << '\n';
    }
}
