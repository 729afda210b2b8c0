#include <cmath>
#include <vector>

struct Body {
    double x;
    double y;
    double mass;
};

struct Accel {
    double ax;
    double ay;
};

// Softened Newtonian acceleration of every body due to all the others (G = 1), for one step
// of a 2-D N-body simulation.
std::vector<Accel> gravity(const std::vector<Body>& bodies) {
    const double softening2 = 1e-3;
    std::vector<Accel> acc(bodies.size(), Accel{0.0, 0.0});
    for (std::size_t i = 0; i < bodies.size(); ++i) {
        for (std::size_t j = 0; j < bodies.size(); ++j) {
            if (i == j) continue;
            const double dx = bodies[j].x - bodies[i].x;
            const double dy = bodies[j].y - bodies[i].y;
            const double r2 = dx * dx + dy * dy + softening2;
            const double s = bodies[j].mass / (r2 * std::sqrt(r2));
            acc[i].ax += dx * s;
            acc[i].ay += dy * s;
        }
    }
    return acc;
}
