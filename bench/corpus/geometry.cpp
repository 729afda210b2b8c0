// perfpilot-corpus: polyline_length, centroid, sum_cross, count_inside, translate, nearest_pair
// 2-D and 3-D geometry over small value types, in the style of a plotting or CAD helper file.
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

struct Point {
  double x = 0.0;
  double y = 0.0;
};

struct Vec3 {
  double x, y, z;
};

struct Rect {
  Point lo;
  Point hi;
};

static double dist(const Point& a, const Point& b) { return std::hypot(a.x - b.x, a.y - b.y); }

double polyline_length(const std::vector<Point>& pts) {
  double total = 0.0;
  for (std::size_t i = 1; i < pts.size(); ++i) total += dist(pts[i - 1], pts[i]);
  return total;
}

Point centroid(const std::vector<Point>& pts) {
  Point c;
  if (pts.empty()) return c;
  for (const Point& p : pts) {
    c.x += p.x;
    c.y += p.y;
  }
  c.x /= static_cast<double>(pts.size());
  c.y /= static_cast<double>(pts.size());
  return c;
}

Vec3 sum_cross(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  Vec3 s{0, 0, 0};
  std::size_t n = a.size() < b.size() ? a.size() : b.size();
  for (std::size_t i = 0; i < n; ++i) {
    s.x += a[i].y * b[i].z - a[i].z * b[i].y;
    s.y += a[i].z * b[i].x - a[i].x * b[i].z;
    s.z += a[i].x * b[i].y - a[i].y * b[i].x;
  }
  return s;
}

int count_inside(const std::vector<Point>& pts, const Rect& r) {
  int count = 0;
  for (const Point& p : pts)
    if (p.x >= r.lo.x && p.x <= r.hi.x && p.y >= r.lo.y && p.y <= r.hi.y) ++count;
  return count;
}

void translate(std::vector<Point>& pts, Point d) {
  for (Point& p : pts) {
    p.x += d.x;
    p.y += d.y;
  }
}

double nearest_pair(const std::vector<Point>& pts) {
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < pts.size(); ++i)
    for (std::size_t j = i + 1; j < pts.size(); ++j) {
      double d = dist(pts[i], pts[j]);
      if (d < best) best = d;
    }
  return best;
}
