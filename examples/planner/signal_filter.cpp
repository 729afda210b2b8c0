// Slow: tests the loop-invariant `mode` inside the hot loop, calls a small helper with
// external linkage per sample, copies and zero-fills with hand-written loops, builds a
// temporary std::vector on every iteration, keeps samples in a std::list, and sums doubles
// in an order the compiler may not vectorize. `out` and `in` may alias.
#include <list>
#include <vector>

double gain(double x) { return x * 0.5 + 1.0; }

double filter(double *out, const double *in, int n, int mode, std::list<double> &log) {
    for (int i = 0; i < n; ++i) {
        if (mode == 1) {
            out[i] = gain(in[i]);
        } else {
            out[i] = in[i];
        }
    }
    double energy = 0.0;
    for (int i = 0; i < n; ++i) {
        energy += out[i] * out[i];
    }
    for (int k = 0; k < 4; ++k) {
        std::vector<double> window(n);
        for (int i = 0; i < n; ++i) window[i] = out[i];
        log.push_back(window[0]);
    }
    return energy;
}

double history(int n) {
    std::list<double> samples;
    for (int i = 0; i < n; ++i) {
        samples.push_back(i * 0.25);
    }
    double sum = 0.0;
    for (double s : samples) {
        sum += s;
    }
    return sum;
}
