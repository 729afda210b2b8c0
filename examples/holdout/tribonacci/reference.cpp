// Bottom-up: keep the last three values instead of recomputing overlapping subproblems.
unsigned long long tribonacci(int n) {
    if (n < 2) return 0;
    unsigned long long a = 0, b = 0, c = 1;  // T(k-2), T(k-1), T(k) for k = 2
    for (int k = 3; k <= n; ++k) {
        unsigned long long next = a + b + c;
        a = b;
        b = c;
        c = next;
    }
    return c;
}
