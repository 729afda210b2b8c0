// perfpilot-corpus: list_sum, total_area, max_of, count_matching, read_total
// Signatures a generator cannot feed without help: linked nodes, polymorphic objects,
// templates, callbacks and streams.
#include <functional>
#include <istream>
#include <vector>

struct Node {
  int value;
  Node* next;
};

long list_sum(const Node* head) {
  long s = 0;
  for (const Node* n = head; n != nullptr; n = n->next) s += n->value;
  return s;
}

struct Shape {
  virtual ~Shape() = default;
  virtual double area() const = 0;
};

double total_area(const std::vector<const Shape*>& shapes) {
  double a = 0;
  for (const Shape* s : shapes) a += s->area();
  return a;
}

template <class T>
T max_of(const std::vector<T>& v) {
  T best{};
  for (const T& x : v)
    if (best < x) best = x;
  return best;
}

int count_matching(const std::vector<int>& v, const std::function<bool(int)>& pred) {
  int n = 0;
  for (int x : v) n += pred(x);
  return n;
}

long read_total(std::istream& in) {
  long total = 0, x = 0;
  while (in >> x) total += x;
  return total;
}
