#include <algorithm>
#include <vector>

// Index of the first sample with the largest absolute value; 0 for an empty buffer.
std::size_t loudest(const std::vector<int>& samples) {
    if (samples.empty()) return 0;
    std::vector<long long> mags;
    for (int s : samples) mags.push_back(s < 0 ? -static_cast<long long>(s) : s);
    const long long top = *std::max_element(mags.begin(), mags.end());
    return static_cast<std::size_t>(std::find(mags.begin(), mags.end(), top) - mags.begin());
}
