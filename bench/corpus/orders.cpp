// perfpilot-corpus: order_total, sku_counts, big_orders, revenue_by_sku
// Orders holding line items: nested structs, hash maps keyed by strings.
#include <string>
#include <unordered_map>
#include <vector>

struct LineItem {
  std::string sku;
  int quantity;
  double unit_price;
};

struct Order {
  long id;
  std::vector<LineItem> items;
  bool express;
};

double order_total(const Order& order) {
  double total = 0.0;
  for (const auto& it : order.items) total += it.quantity * it.unit_price;
  if (order.express) total += 9.99;
  return total;
}

std::unordered_map<std::string, int> sku_counts(const std::vector<Order>& orders) {
  std::unordered_map<std::string, int> counts;
  for (const auto& o : orders)
    for (const auto& it : o.items) counts[it.sku] += it.quantity;
  return counts;
}

std::vector<long> big_orders(const std::vector<Order>& orders, double threshold) {
  std::vector<long> ids;
  for (const auto& o : orders) {
    double total = 0.0;
    for (const auto& it : o.items) total += it.quantity * it.unit_price;
    if (total > threshold) ids.push_back(o.id);
  }
  return ids;
}

std::unordered_map<std::string, double> revenue_by_sku(const std::vector<Order>& orders) {
  std::unordered_map<std::string, double> revenue;
  for (const auto& o : orders)
    for (const auto& it : o.items) revenue[it.sku] += it.quantity * it.unit_price;
  return revenue;
}
