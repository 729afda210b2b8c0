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
    const long n = static_cast<long>(bodies.size());
    std::vector<Accel> acc(bodies.size(), Accel{0.0, 0.0});
    // Each body's acceleration depends only on the (read-only) positions, so the outer loop
    // splits across threads; the inner sum keeps its order, so results are bit-identical.
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i) {
        const Body bi = bodies[i];
        double ax = 0.0;
        double ay = 0.0;
        for (long j = 0; j < n; ++j) {
            if (j == i) continue;
            const double dx = bodies[j].x - bi.x;
            const double dy = bodies[j].y - bi.y;
            const double r2 = dx * dx + dy * dy + softening2;
            const double s = bodies[j].mass / (r2 * std::sqrt(r2));
            ax += dx * s;
            ay += dy * s;
        }
        acc[i].ax = ax;
        acc[i].ay = ay;
    }
    return acc;
}
