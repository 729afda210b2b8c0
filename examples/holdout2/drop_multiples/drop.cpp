#include <vector>

// values without the elements divisible by k, in their order; unchanged when k is 0.
std::vector<int> drop_multiples(std::vector<int> values, int k) {
    if (k == 0) return values;
    for (std::size_t i = 0; i < values.size();) {
        if (static_cast<long long>(values[i]) % k == 0) values.erase(values.begin() + i);
        else ++i;
    }
    return values;
}
