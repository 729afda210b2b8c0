#include <vector>

// Advance a chain of unit masses joined by springs of the given stiffness (free ends) by 32
// explicit Euler steps of 0.01 s; positions and velocities (one per mass) are updated in
// place.
void simulate_chain(std::vector<double>& pos, std::vector<double>& vel, double stiffness) {
    const double dt = 0.01;
    const std::size_t n = pos.size();
    // One force buffer for all steps, and no per-particle vector of neighbours: the two
    // neighbour terms are added in the same order as before, so the sums are unchanged.
    std::vector<double> force(n);
    for (int step = 0; step < 32; ++step) {
        for (std::size_t i = 0; i < n; ++i) {
            double f = 0.0;
            if (i > 0) f += stiffness * (pos[i - 1] - pos[i]);
            if (i + 1 < n) f += stiffness * (pos[i + 1] - pos[i]);
            force[i] = f;
        }
        for (std::size_t i = 0; i < n; ++i) {
            vel[i] += force[i] * dt;
            pos[i] += vel[i] * dt;
        }
    }
}
