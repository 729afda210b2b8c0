// Each thread keeps its own best (smallest start on ties); the bests are merged under a lock
// with the same rule, so the answer does not depend on the split.
unsigned long long longest_collatz(int limit) {
    unsigned long long best_steps = 0, best_start = 0;
    #pragma omp parallel
    {
        unsigned long long my_steps = 0, my_start = 0;
        #pragma omp for schedule(dynamic, 256) nowait
        for (int s = 1; s < limit; ++s) {
            unsigned long long v = static_cast<unsigned long long>(s), steps = 0;
            while (v != 1) {
                v = (v % 2 == 0) ? v / 2 : 3 * v + 1;
                ++steps;
            }
            const unsigned long long start = static_cast<unsigned long long>(s);
            if (my_start == 0 || steps > my_steps || (steps == my_steps && start < my_start)) {
                my_steps = steps;
                my_start = start;
            }
        }
        #pragma omp critical
        if (my_start != 0 && (best_start == 0 || my_steps > best_steps ||
                              (my_steps == best_steps && my_start < best_start))) {
            best_steps = my_steps;
            best_start = my_start;
        }
    }
    return (best_steps << 32) + best_start;
}
