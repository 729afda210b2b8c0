// The n-th tribonacci number: T0 = 0, T1 = 0, T2 = 1, Tn = Tn-1 + Tn-2 + Tn-3.
unsigned long long tribonacci(int n) {
    if (n < 2) return 0;
    if (n == 2) return 1;
    return tribonacci(n - 1) + tribonacci(n - 2) + tribonacci(n - 3);
}
