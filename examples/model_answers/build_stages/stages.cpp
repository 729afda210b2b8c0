#include <utility>
#include <vector>

// Build stage of every target: a target with no prerequisites builds in stage 0, any other one
// stage after the latest of its prerequisites. deps holds (prerequisite, target) pairs of a
// dependency graph without cycles; targets are numbered 0 .. targets-1.
std::vector<int> build_stages(int targets, const std::vector<std::pair<int, int>>& deps) {
    std::vector<int> stage(targets, 0);
    bool changed = true;
    while (changed) {
        changed = false;
        for (const auto& d : deps) {
            if (stage[d.second] < stage[d.first] + 1) {
                stage[d.second] = stage[d.first] + 1;
                changed = true;
            }
        }
    }
    return stage;
}
