long long choose(int n, int k) {
    // A memo for this call: each (n, k) is computed once.
    struct Memo {
        std::map<std::tuple<int, int>, long long> seen;

        long long solve(int n, int k) {
            const std::tuple<int, int> key(n, k);
            const auto found = seen.find(key);
            if (found != seen.end()) return found->second;
            if (k < 0 || k > n) return 0;
            if (k == 0 || k == n) return 1;
            const long long result = solve(n - 1, k - 1) + solve(n - 1, k);
            seen.emplace(key, result);
            return result;
        }
    };
    return Memo{}.solve(n, k);
}
