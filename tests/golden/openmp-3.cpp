long long sum_all(const std::vector<int>& v) {
    auto v_sum = 0LL;
    #pragma omp parallel for reduction(+:v_sum)
    for (std::size_t k = 0; k < v.size(); ++k) {
        v_sum += v[k];
    }
    long long s = v_sum;
    return s;
}
