#include <cstdlib>
#include <vector>

struct Depot {
    int x;  // grid coordinates of a depot in the city's street grid
    int y;
};

// Sum of the street (Manhattan) distances over all pairs of depots: the planner's measure of
// how spread out a delivery network is.
long long total_street_distance(const std::vector<Depot>& depots) {
    long long total = 0;
    for (std::size_t i = 0; i < depots.size(); ++i) {
        for (std::size_t j = i + 1; j < depots.size(); ++j) {
            total += std::llabs(static_cast<long long>(depots[i].x) - depots[j].x) +
                     std::llabs(static_cast<long long>(depots[i].y) - depots[j].y);
        }
    }
    return total;
}
