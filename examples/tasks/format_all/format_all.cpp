// "v0;v1;...": each value formatted through a freshly constructed string stream.
#include <sstream>
#include <string>
#include <vector>

std::string format_all(const std::vector<int>& v)
{
    std::string out;
    for (int x : v) {
        std::ostringstream os;
        os << x << ';';
        out += os.str();
    }
    return out;
}
