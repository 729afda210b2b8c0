int first_negative(const int *a, int n) {
    {
        bool i_hit = false;
        int i_at{};
        long long i_stop = 9223372036854775807LL;
        #pragma omp parallel for schedule(static)
        for (int i = 0; i < n; ++i) {
            long long i_seen;
            #pragma omp atomic read
            i_seen = i_stop;
            if (static_cast<long long>(i) > i_seen) continue;
            if (a[i] < 0) {
                #pragma omp critical
                {
                    if (!i_hit || i < i_at) {
                        i_hit = true;
                        i_at = i;
                        #pragma omp atomic write
                        i_stop = static_cast<long long>(i);
                    }
                }
            }
        }
        if (i_hit) {
            int i = i_at;
            return i;
        }
    }
    return -1;
}
