int main() {
    std::ios::sync_with_stdio(false);
    std::cin.tie(nullptr);
    int n;
    std::cin >> n;
    long total = 0;
    for (int i = 0; i < n; ++i) {
        int x;
        std::cin >> x;
        total += x;
    }
    std::cout << total << "\n";
    return 0;
}
