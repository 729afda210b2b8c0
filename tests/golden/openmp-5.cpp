long running_total(const int *__restrict a, long *__restrict out, int n) {
    long s = 0;
    {
        const int s_first = 0;
        const int s_last = n;
        const long long s_count = s_last > s_first
                                      ? static_cast<long long>(s_last) -
                                            static_cast<long long>(s_first)
                                      : 0;
        long s_part[64];
        #pragma omp parallel for
        for (int s_block = 0; s_block < 64; ++s_block) {
            const int s_from =
                static_cast<int>(s_first + s_count * s_block / 64);
            const int s_to =
                static_cast<int>(s_first + s_count * (s_block + 1) / 64);
            long s_sum{};
            for (int i = s_from; i < s_to; ++i) {
                s_sum += a[i];
            }
            s_part[s_block] = s_sum;
        }
        long s_run = s;
        for (int s_k = 0; s_k < 64; ++s_k) {
            const long s_sum = s_part[s_k];
            s_part[s_k] = s_run;
            s_run += s_sum;
        }
        #pragma omp parallel for
        for (int s_block = 0; s_block < 64; ++s_block) {
            const int s_from =
                static_cast<int>(s_first + s_count * s_block / 64);
            const int s_to =
                static_cast<int>(s_first + s_count * (s_block + 1) / 64);
            long s_sum = s_part[s_block];
            for (int i = s_from; i < s_to; ++i) {
                s_sum += a[i];
                out[i] = s_sum;
            }
        }
        s = s_run;
    }
    return s;
}
