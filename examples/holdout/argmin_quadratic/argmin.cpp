#include <vector>

// Index of the first smallest cost, or -1 for no costs.
long cheapest(const std::vector<long>& cost) {
    for (std::size_t i = 0; i < cost.size(); ++i) {
        bool smallest = true;
        for (std::size_t j = 0; j < cost.size(); ++j) {
            if (cost[j] < cost[i]) {
                smallest = false;
            }
        }
        if (smallest) return static_cast<long>(i);
    }
    return -1;
}
