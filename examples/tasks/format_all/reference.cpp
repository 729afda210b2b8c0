// Reference: std::to_chars into a stack buffer, appended to a reserved string.
#include <charconv>
#include <string>
#include <vector>

std::string format_all(const std::vector<int>& v)
{
    std::string out;
    out.reserve(v.size() * 8);
    char buf[16];
    for (int x : v) {
        auto res = std::to_chars(buf, buf + sizeof buf, x);
        *res.ptr++ = ';';
        out.append(buf, res.ptr);
    }
    return out;
}
