// perfpilot-corpus: shop::Cart::total, shop::Cart::units, shop::order_value
// A cart class and a line struct declared in a project header (shop.h), defined here.
#include "shop.h"

namespace shop {

void Cart::add_item(const std::string& sku, int qty, double price) {
  if (qty <= 0) return;
  qty_[sku] += qty;
  price_[sku] = price;
}

void Cart::remove_item(const std::string& sku) {
  qty_.erase(sku);
  price_.erase(sku);
}

double Cart::total() const {
  double t = 0;
  for (const auto& kv : qty_) t += kv.second * price_.at(kv.first);
  return t;
}

int Cart::units() const {
  int u = 0;
  for (const auto& kv : qty_) u += kv.second;
  return u;
}

double order_value(const std::vector<Line>& lines) {
  double v = 0;
  for (const Line& l : lines) v += l.qty * l.price;
  return v;
}

}  // namespace shop
