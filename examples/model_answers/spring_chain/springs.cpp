#include <vector>

// Advance a chain of unit masses joined by springs of the given stiffness (free ends) by 32
// explicit Euler steps of 0.01 s; positions and velocities (one per mass) are updated in
// place.
void simulate_chain(std::vector<double>& pos, std::vector<double>& vel, double stiffness) {
    const double dt = 0.01;
    const std::size_t n = pos.size();
    for (int step = 0; step < 32; ++step) {
        std::vector<double> force;
        for (std::size_t i = 0; i < n; ++i) {
            std::vector<double> neighbours;
            if (i > 0) neighbours.push_back(pos[i - 1]);
            if (i + 1 < n) neighbours.push_back(pos[i + 1]);
            double f = 0.0;
            for (double q : neighbours) f += stiffness * (q - pos[i]);
            force.push_back(f);
        }
        for (std::size_t i = 0; i < n; ++i) {
            vel[i] += force[i] * dt;
            pos[i] += vel[i] * dt;
        }
    }
}
