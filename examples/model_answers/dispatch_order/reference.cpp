#include <algorithm>
#include <vector>

struct Job {
    int id;
    int priority;   // higher runs first
    int submitted;  // among equal priorities, earlier submission runs first
};

// The order in which the dispatcher starts the queued jobs: highest priority first, then the
// earliest submitted; jobs equal on both keys start in queue order.
std::vector<int> dispatch_order(const std::vector<Job>& queue) {
    std::vector<Job> sorted = queue;
    // stable_sort keeps queue order among jobs that tie on both keys, exactly like the
    // repeated "first best" selection did.
    std::stable_sort(sorted.begin(), sorted.end(), [](const Job& a, const Job& b) {
        if (a.priority != b.priority) return a.priority > b.priority;
        return a.submitted < b.submitted;
    });
    std::vector<int> order;
    order.reserve(sorted.size());
    for (const Job& job : sorted) order.push_back(job.id);
    return order;
}
