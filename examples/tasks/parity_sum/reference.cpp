// Reference: masks instead of branches.
#include <vector>

long long parity_balance(const std::vector<int>& v)
{
    long long odd = 0, even = 0;
    for (int x : v) {
        const long long is_odd = x & 1;
        const long long is_even = 1 - is_odd;
        const long long third = (x % 3 == 0) ? x / 3 : 0;
        odd += is_odd * x;
        even += is_even * (x + third);
    }
    return odd - 3 * even;
}
