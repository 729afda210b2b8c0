// Reference: a loop, linear in n and without calls.
long fib(int n)
{
    long a = 0, b = 1;
    for (int i = 0; i < n; ++i) {
        long t = a + b;
        a = b;
        b = t;
    }
    return a;
}
