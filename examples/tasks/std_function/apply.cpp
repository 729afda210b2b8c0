// Sum of a formula over the values; the formula is held in a std::function.
#include <functional>
#include <vector>

double apply_all(const std::vector<double>& v, double scale)
{
    std::function<double(double)> f = [scale](double x) { return x * scale + 0.5 * x * x; };
    double total = 0.0;
    for (double x : v)
        total += f(x);
    return total;
}
