#include <cmath>
#include <vector>

struct Sample {
    float x;
    float y;
};

// The centroid does not depend on the sample: compute it once (same sums, same order).
std::vector<float> spread(const std::vector<Sample>& samples) {
    std::vector<float> out;
    out.reserve(samples.size());
    float cx = 0.0f, cy = 0.0f;
    for (const Sample& t : samples) {
        cx += t.x;
        cy += t.y;
    }
    cx /= samples.size();
    cy /= samples.size();
    for (const Sample& s : samples)
        out.push_back(std::sqrt((s.x - cx) * (s.x - cx) + (s.y - cy) * (s.y - cy)));
    return out;
}
