#include <algorithm>
#include <utility>
#include <vector>

// Dependents of every target in compressed rows: those of target t are
// dependents[first[t] .. first[t + 1]).
struct Adjacency {
    std::vector<int> first;
    std::vector<int> dependents;
};

Adjacency dependents_of(int targets, const std::vector<std::pair<int, int>>& deps) {
    Adjacency adj;
    adj.first.assign(static_cast<std::size_t>(targets) + 1, 0);
    for (const auto& d : deps) ++adj.first[d.first + 1];
    for (int t = 0; t < targets; ++t) adj.first[t + 1] += adj.first[t];
    adj.dependents.resize(deps.size());
    std::vector<int> next(adj.first.begin(), adj.first.end() - 1);
    for (const auto& d : deps) adj.dependents[next[d.first]++] = d.second;
    return adj;
}

// Build stage of every target: a target with no prerequisites builds in stage 0, any other one
// stage after the latest of its prerequisites. deps holds (prerequisite, target) pairs of a
// dependency graph without cycles; targets are numbered 0 .. targets-1.
std::vector<int> build_stages(int targets, const std::vector<std::pair<int, int>>& deps) {
    const Adjacency adj = dependents_of(targets, deps);
    std::vector<int> indegree(targets, 0);
    for (const auto& d : deps) ++indegree[d.second];

    // Kahn's topological order: a target's stage is final once all its prerequisites are
    // done, so one pass over the edges settles every stage.
    std::vector<int> stage(targets, 0);
    std::vector<int> ready;
    ready.reserve(static_cast<std::size_t>(targets));
    for (int t = 0; t < targets; ++t) {
        if (indegree[t] == 0) ready.push_back(t);
    }
    for (std::size_t head = 0; head < ready.size(); ++head) {
        const int u = ready[head];
        for (int k = adj.first[u]; k < adj.first[u + 1]; ++k) {
            const int v = adj.dependents[k];
            stage[v] = std::max(stage[v], stage[u] + 1);
            if (--indegree[v] == 0) ready.push_back(v);
        }
    }
    return stage;
}
