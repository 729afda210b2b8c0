// Reference: unsynchronized streams, no flush per line.
#include <iostream>

int main()
{
    std::ios::sync_with_stdio(false);
    std::cin.tie(nullptr);
    long n = 0;
    std::cin >> n;
    long long sum = 0;
    for (long i = 0; i < n; ++i) {
        long long x = 0;
        std::cin >> x;
        sum += x;
        std::cout << sum << '\n';
    }
    return 0;
}
