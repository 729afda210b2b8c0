#include <vector>

// Sort scores ascending in place.
void sort_scores(std::vector<int>& scores) {
    for (auto it = scores.begin(); it != scores.end(); ++it) {
        auto smallest = it;
        for (auto jt = it + 1; jt != scores.end(); ++jt)
            if (*jt < *smallest) smallest = jt;
        int tmp = *it;
        *it = *smallest;
        *smallest = tmp;
    }
}
