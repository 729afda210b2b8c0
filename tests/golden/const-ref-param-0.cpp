long sum(const std::vector<long> &v) {
    long s = 0;
    for (long x : v) s += x;
    return s;
}
