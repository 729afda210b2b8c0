// Slow: for every query it scans `seen` with std::find (O(n*m) overall), appends to `out`
// in a counted loop without reserve, and takes `items` by value although it only reads it.
#include <algorithm>
#include <vector>

std::vector<int> unique_in_order(std::vector<int> items, int n) {
    std::vector<int> seen;
    std::vector<int> out;
    for (int i = 0; i < n; ++i) {
        int x = items[i];
        if (std::find(seen.begin(), seen.end(), x) == seen.end()) {
            seen.push_back(x);
        }
    }
    for (int i = 0; i < n; ++i) {
        out.push_back(items[i] * 2);
    }
    return out;
}

int count_duplicates(const int* a, int n) {
    int dups = 0;
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < i; ++j) {
            if (a[j] == a[i]) {
                ++dups;
                break;
            }
        }
    }
    return dups;
}
