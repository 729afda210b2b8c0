// perfpilot-corpus: inventory_value, low_stock, Inventory::restock_all, Inventory::value
// Stock keeping with maps of product records, and a class wrapping one.
#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

struct Product {
  std::string name;
  int stock;
  double price;
};

double inventory_value(const std::map<std::string, Product>& inv) {
  double v = 0.0;
  for (const auto& [key, p] : inv) v += p.stock * p.price;
  return v;
}

std::vector<std::string> low_stock(const std::unordered_map<std::string, Product>& inv,
                                   int threshold) {
  std::vector<std::string> out;
  for (const auto& kv : inv)
    if (kv.second.stock < threshold) out.push_back(kv.first);
  std::sort(out.begin(), out.end());
  return out;
}

class Inventory {
 public:
  explicit Inventory(const std::vector<Product>& products) {
    for (const auto& p : products) items_[p.name] = p;
  }

  void restock_all(int minimum) {
    for (auto& kv : items_)
      if (kv.second.stock < minimum) kv.second.stock = minimum;
  }

  double value() const {
    double v = 0.0;
    for (const auto& kv : items_) v += kv.second.stock * kv.second.price;
    return v;
  }

 private:
  std::map<std::string, Product> items_;
};
