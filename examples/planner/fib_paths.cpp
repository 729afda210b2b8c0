// Slow: both functions recompute the same subproblems exponentially many times
// (fib(n - 1) and fib(n - 2) overlap; so do the two grid-path calls).
long long fib(int n) {
    if (n < 2) {
        return n;
    }
    return fib(n - 1) + fib(n - 2);
}

long long grid_paths(int r, int c) {
    if (r == 0 || c == 0) {
        return 1;
    }
    return grid_paths(r - 1, c) + grid_paths(r, c - 1);
}
