long drain(std::vector<int> &q) {
    long s = 0;
    std::size_t q_head = 0;
    while (q_head < q.size()) {
        s += q[q_head];
        ++q_head;
    }
    q.erase(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(q_head));
    return s;
}
