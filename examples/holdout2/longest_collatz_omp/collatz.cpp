// The start s in [1, limit) whose Collatz sequence takes the most steps to reach 1 (the
// smallest such s on ties), as steps * 2^32 + s; 0 when limit <= 1.
unsigned long long longest_collatz(int limit) {
    unsigned long long best_steps = 0, best_start = 0;
    for (int s = 1; s < limit; ++s) {
        unsigned long long v = static_cast<unsigned long long>(s), steps = 0;
        while (v != 1) {
            v = (v % 2 == 0) ? v / 2 : 3 * v + 1;
            ++steps;
        }
        if (best_start == 0 || steps > best_steps) {
            best_steps = steps;
            best_start = static_cast<unsigned long long>(s);
        }
    }
    return (best_steps << 32) + best_start;
}
