#include <cmath>
#include <vector>

struct Sample {
    float x;
    float y;
};

// Distance of every sample from the centroid of all samples.
std::vector<float> spread(const std::vector<Sample>& samples) {
    std::vector<float> out;
    for (const Sample& s : samples) {
        float cx = 0.0f, cy = 0.0f;
        for (const Sample& t : samples) {
            cx += t.x;
            cy += t.y;
        }
        cx /= samples.size();
        cy /= samples.size();
        out.push_back(std::sqrt((s.x - cx) * (s.x - cx) + (s.y - cy) * (s.y - cy)));
    }
    return out;
}
