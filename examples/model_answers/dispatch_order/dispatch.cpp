#include <vector>

struct Job {
    int id;
    int priority;   // higher runs first
    int submitted;  // among equal priorities, earlier submission runs first
};

// The order in which the dispatcher starts the queued jobs: highest priority first, then the
// earliest submitted; jobs equal on both keys start in queue order.
std::vector<int> dispatch_order(const std::vector<Job>& queue) {
    std::vector<Job> pending = queue;
    std::vector<int> order;
    while (!pending.empty()) {
        std::size_t best = 0;
        for (std::size_t i = 1; i < pending.size(); ++i) {
            const Job& a = pending[i];
            const Job& b = pending[best];
            if (a.priority > b.priority ||
                (a.priority == b.priority && a.submitted < b.submitted)) {
                best = i;
            }
        }
        order.push_back(pending[best].id);
        pending.erase(pending.begin() + static_cast<long>(best));
    }
    return order;
}
