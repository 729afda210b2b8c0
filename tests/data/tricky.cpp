#include <map>
#include <string>
#include <vector>

namespace geo {
namespace detail {

struct Point {
    double x, y;
    double norm2() const { return x * x + y * y; }
    Point& operator+=(const Point& o);
    static Point origin() { return {0, 0}; }
};

Point& Point::operator+=(const Point& o) {
    x += o.x;
    y += o.y;
    return *this;
}

}  // namespace detail

template <typename T>
T total(const std::vector<T>& v) {
    T s{};
    for (const T& e : v) s += e;
    return s;
}

static inline int clamp01(int v) { return v < 0 ? 0 : (v > 1 ? 1 : v); }

}  // namespace geo

extern "C" double dot(const double* a, const double* b, int n) {
    double s = 0;
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < n; ++i) s += a[i] * b[i];
    return s;
}

int overloaded(int a) { return a; }
int overloaded(int a, int b) { return a + b; }

std::map<std::string, int> count_words(std::vector<std::string> words, unsigned long long limit) {
    std::map<std::string, int> m;
    for (auto& w : words) m[w]++;  // 'ü' non-ASCII in a comment
    return m;
}
