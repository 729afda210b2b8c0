std::vector<int> drain_smallest(std::vector<int> pool) {
    std::vector<int> order;
    std::sort(pool.begin(), pool.end());
    std::size_t pool_taken = 0;
    while (pool_taken != pool.size()) {
        auto it = pool.begin() + pool_taken;
        order.push_back(*it);
        ++pool_taken;
    }
    return order;
}
