#include <string>
#include <unordered_map>
#include <vector>

struct StockItem {
    std::string sku;
    int on_hand;
};

struct OrderLine {
    std::string sku;
    int quantity;
};

// SKU -> position of its first entry in the inventory.
using SkuIndex = std::unordered_map<std::string, std::size_t>;

// Ship the order lines in order from stock. A line whose SKU is not stocked, or that asks for
// more than is on hand, is not shipped at all. When a SKU is listed twice in the inventory,
// the first entry is the one that ships. Returns how many lines were not shipped.
int fill_orders(std::vector<StockItem>& inventory, const std::vector<OrderLine>& orders) {
    SkuIndex index;
    index.reserve(inventory.size());
    for (std::size_t i = 0; i < inventory.size(); ++i) {
        index.emplace(inventory[i].sku, i);  // emplace keeps the first entry of a duplicate
    }
    int unfilled = 0;
    for (const OrderLine& line : orders) {
        const auto it = index.find(line.sku);
        if (it == index.end() || line.quantity > inventory[it->second].on_hand) {
            ++unfilled;
            continue;
        }
        inventory[it->second].on_hand -= line.quantity;
    }
    return unfilled;
}
