#include <vector>

// One pass, no copy: a strictly larger magnitude moves the answer, so the first maximum stays.
std::size_t loudest(const std::vector<int>& samples) {
    std::size_t best = 0;
    long long top = -1;
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const long long s = samples[i];
        const long long m = s < 0 ? -s : s;
        if (m > top) {
            top = m;
            best = i;
        }
    }
    return best;
}
