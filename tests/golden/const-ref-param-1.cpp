double sum(const std::map<std::string, double> &prices) {
    double s = 0;
    for (auto &kv : prices) s += kv.second;
    return s;
}
