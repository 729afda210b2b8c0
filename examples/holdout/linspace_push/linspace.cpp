#include <vector>

// `count` evenly spaced values from lo to hi (hi excluded).
std::vector<double> linspace(double lo, double hi, int count) {
    std::vector<double> xs;
    for (int i = 0; i < count; ++i) {
        xs.push_back(lo + (hi - lo) * i / count);
    }
    return xs;
}
