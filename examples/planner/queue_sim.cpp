// Slow: pops the front of a std::vector with erase(begin()) in a loop, shifting every
// remaining element each time (quadratic); a std::deque pops the front in O(1).
#include <vector>

long long drain(std::vector<int> &queue) {
    long long served = 0;
    while (!queue.empty()) {
        served += queue.front();
        queue.erase(queue.begin());
    }
    return served;
}
