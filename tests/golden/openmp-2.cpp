std::vector<long> histogram(const int *a, int n) {
    std::vector<long> h(256);
    {
        const std::size_t h_len = h.size();
        long* const h_out = h.data();
        #pragma omp parallel
        {
            std::vector<long> h_local(h_len);
            #pragma omp for nowait
            for (int i = 0; i < n; ++i) {
                ++h_local[a[i] & 255];
            }
            #pragma omp critical
            {
                for (std::size_t h_k = 0; h_k < h_len; ++h_k) {
                    h_out[h_k] += h_local[h_k];
                }
            }
        }
    }
    return h;
}
