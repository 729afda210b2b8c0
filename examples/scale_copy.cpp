// Scaling a signal: the vector is copied on every call and grown one element at a time.
#include <cmath>
#include <vector>

std::vector<double> scaled_energy(std::vector<double> samples, double gain)
{
    std::vector<double> out;
    for (std::size_t i = 0; i < samples.size(); ++i)
        out.push_back(std::pow(samples[i] * gain, 2));
    return out;
}
