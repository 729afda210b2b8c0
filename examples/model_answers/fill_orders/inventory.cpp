#include <string>
#include <vector>

struct StockItem {
    std::string sku;
    int on_hand;
};

struct OrderLine {
    std::string sku;
    int quantity;
};

// Ship the order lines in order from stock. A line whose SKU is not stocked, or that asks for
// more than is on hand, is not shipped at all. When a SKU is listed twice in the inventory,
// the first entry is the one that ships. Returns how many lines were not shipped.
int fill_orders(std::vector<StockItem>& inventory, const std::vector<OrderLine>& orders) {
    int unfilled = 0;
    for (const OrderLine& line : orders) {
        StockItem* item = nullptr;
        for (StockItem& s : inventory) {
            if (s.sku == line.sku) {
                item = &s;
                break;
            }
        }
        if (item == nullptr || line.quantity > item->on_hand) {
            ++unfilled;
            continue;
        }
        item->on_hand -= line.quantity;
    }
    return unfilled;
}
