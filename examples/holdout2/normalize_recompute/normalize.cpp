#include <cmath>
#include <vector>

static double norm(const std::vector<double>& v) {
    double s = 0.0;
    for (double x : v) s += x * x;
    return std::sqrt(s);
}

// v / |v| (the Euclidean norm); a zero vector is returned unchanged.
std::vector<double> normalized(const std::vector<double>& v) {
    std::vector<double> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (norm(v) == 0.0) out[i] = v[i];
        else out[i] = v[i] / norm(v);
    }
    return out;
}
