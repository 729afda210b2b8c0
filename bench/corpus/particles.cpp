// perfpilot-corpus: integrate, kinetic_energy, ParticleSystem::advance, ParticleSystem::total_mass
// A tiny particle simulation: structs of vectors, and a class that owns its particles.
#include <cstddef>
#include <vector>

namespace sim {

struct Vec3 {
  double x, y, z;
};

struct Particle {
  Vec3 pos;
  Vec3 vel;
  double mass;
};

void integrate(std::vector<Particle>& ps, double dt) {
  for (auto& p : ps) {
    p.vel.z -= 9.81 * dt;
    p.pos.x += p.vel.x * dt;
    p.pos.y += p.vel.y * dt;
    p.pos.z += p.vel.z * dt;
    if (p.pos.z < 0) {
      p.pos.z = -p.pos.z;
      p.vel.z = -0.9 * p.vel.z;
    }
  }
}

double kinetic_energy(const std::vector<Particle>& ps) {
  double e = 0.0;
  for (const auto& p : ps)
    e += 0.5 * p.mass * (p.vel.x * p.vel.x + p.vel.y * p.vel.y + p.vel.z * p.vel.z);
  return e;
}

class ParticleSystem {
 public:
  ParticleSystem(int count, double gravity) : particles_(count), gravity_(gravity) {}

  void advance(double dt) {
    for (std::size_t i = 0; i < particles_.size(); ++i) {
      Particle& p = particles_[i];
      p.vel.z -= gravity_ * dt;
      p.pos.x += p.vel.x * dt;
      p.pos.y += p.vel.y * dt;
      p.pos.z += p.vel.z * dt;
    }
  }

  double total_mass() const {
    double m = 0.0;
    for (const auto& p : particles_) m += p.mass;
    return m;
  }

 private:
  std::vector<Particle> particles_;
  double gravity_;
};

}  // namespace sim
