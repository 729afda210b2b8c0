// Candidates are independent; larger ones cost more, so chunks are handed out dynamically.
long count_primes(int limit) {
    long found = 0;
    #pragma omp parallel for reduction(+:found) schedule(dynamic, 256)
    for (int v = 2; v < limit; ++v) {
        bool prime = true;
        for (int d = 2; d * d <= v; ++d) {
            if (v % d == 0) {
                prime = false;
                break;
            }
        }
        if (prime) ++found;
    }
    return found;
}
