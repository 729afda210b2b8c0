#include <vector>

// The length is known: allocate once and write in place.
std::vector<double> linspace(double lo, double hi, int count) {
    if (count <= 0) return {};
    std::vector<double> xs;
    xs.resize(static_cast<std::size_t>(count));
    const double width = hi - lo;
    for (int i = 0; i < count; ++i) xs[i] = lo + width * i / count;
    return xs;
}
