// Reads n and n integers; prints the running sum after each one.
#include <iostream>

int main()
{
    long n = 0;
    std::cin >> n;
    long long sum = 0;
    for (long i = 0; i < n; ++i) {
        long long x = 0;
        std::cin >> x;
        sum += x;
        std::cout << sum << std::endl;
    }
    return 0;
}
