#include <algorithm>
#include <cstdlib>
#include <vector>

struct Depot {
    int x;  // grid coordinates of a depot in the city's street grid
    int y;
};

// Sum of |a - b| over all pairs of values: once sorted, the k-th smallest value is the larger
// one in exactly k pairs, so it contributes v[k] * k minus the sum of the k values below it.
static long long pairwise_abs_sum(std::vector<long long>& v) {
    std::sort(v.begin(), v.end());
    long long total = 0;
    long long prefix = 0;
    for (std::size_t k = 0; k < v.size(); ++k) {
        total += v[k] * static_cast<long long>(k) - prefix;
        prefix += v[k];
    }
    return total;
}

// Sum of the street (Manhattan) distances over all pairs of depots: the planner's measure of
// how spread out a delivery network is.
long long total_street_distance(const std::vector<Depot>& depots) {
    // The x and y parts of a Manhattan distance are independent: sum each axis on its own.
    std::vector<long long> xs, ys;
    xs.reserve(depots.size());
    ys.reserve(depots.size());
    for (const Depot& d : depots) {
        xs.push_back(d.x);
        ys.push_back(d.y);
    }
    return pairwise_abs_sum(xs) + pairwise_abs_sum(ys);
}
