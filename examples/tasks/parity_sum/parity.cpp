// Sum of odd values minus three times the sum of even values, with an unpredictable branch.
#include <vector>

long long parity_balance(const std::vector<int>& v)
{
    long long odd = 0, even = 0;
    for (int x : v) {
        if (x % 2 != 0) {
            odd += x;
        } else {
            even += x;
            if (x % 3 == 0)
                even += x / 3;
        }
    }
    return odd - 3 * even;
}
