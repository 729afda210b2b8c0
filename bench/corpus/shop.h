// A cart declared in a header, its methods defined in shop.cpp.
#ifndef SHOP_H
#define SHOP_H
#include <map>
#include <string>
#include <vector>

namespace shop {

struct Line {
  std::string sku;
  int qty;
  double price;
};

class Cart {
 public:
  void add_item(const std::string& sku, int qty, double price);
  void remove_item(const std::string& sku);
  std::size_t lines() const { return qty_.size(); }
  double total() const;
  int units() const;

 private:
  std::map<std::string, int> qty_;
  std::map<std::string, double> price_;
};

double order_value(const std::vector<Line>& lines);

}  // namespace shop
#endif
