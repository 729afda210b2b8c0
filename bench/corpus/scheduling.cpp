// perfpilot-corpus: schedule_jobs, busiest_worker, Queue::drain, priority_totals
// Job scheduling with structs, lists and a queue class built from a constructor.
#include <algorithm>
#include <list>
#include <map>
#include <string>
#include <unordered_set>
#include <vector>

enum class Priority { Low = 0, Normal = 1, High = 2 };

struct Job {
  int id;
  int duration;
  Priority priority;
};

struct Assignment {
  int job;
  int worker;
  long start;
};

std::vector<Assignment> schedule_jobs(const std::vector<Job>& jobs, int workers) {
  std::vector<Assignment> out;
  if (workers <= 0) return out;
  std::vector<long> free_at(workers, 0);
  std::vector<Job> sorted = jobs;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Job& a, const Job& b) {
    return static_cast<int>(a.priority) > static_cast<int>(b.priority);
  });
  for (const Job& j : sorted) {
    int w = static_cast<int>(std::min_element(free_at.begin(), free_at.end()) - free_at.begin());
    out.push_back({j.id, w, free_at[w]});
    free_at[w] += j.duration;
  }
  return out;
}

int busiest_worker(const std::list<Assignment>& assignments, const std::unordered_set<int>& skip) {
  std::map<int, int> load;
  for (const auto& a : assignments)
    if (!skip.count(a.worker)) ++load[a.worker];
  int best = -1, most = 0;
  for (const auto& [w, n] : load)
    if (n > most) {
      most = n;
      best = w;
    }
  return best;
}

class Queue {
 public:
  explicit Queue(std::vector<Job> jobs) : pending_(jobs.begin(), jobs.end()), done_(0) {}

  long drain(int budget) {
    long spent = 0;
    while (!pending_.empty() && spent + pending_.front().duration <= budget) {
      spent += pending_.front().duration;
      pending_.pop_front();
      ++done_;
    }
    return spent;
  }

 private:
  std::list<Job> pending_;
  int done_;
};

std::map<Priority, long> priority_totals(const std::vector<Job>& jobs) {
  std::map<Priority, long> totals;
  for (const Job& j : jobs) totals[j.priority] += j.duration;
  return totals;
}
