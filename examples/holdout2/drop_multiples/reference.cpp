#include <algorithm>
#include <vector>

// The erase-remove idiom: every kept element moves once instead of after each erase.
std::vector<int> drop_multiples(std::vector<int> values, int k) {
    if (k == 0) return values;
    values.erase(std::remove_if(values.begin(), values.end(),
                                [k](int v) { return static_cast<long long>(v) % k == 0; }),
                 values.end());
    return values;
}
