// Reference: the lambda is called directly, so it inlines into the loop.
#include <functional>
#include <vector>

double apply_all(const std::vector<double>& v, double scale)
{
    auto f = [scale](double x) { return x * scale + 0.5 * x * x; };
    double total = 0.0;
    for (double x : v)
        total += f(x);
    return total;
}
