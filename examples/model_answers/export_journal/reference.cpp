#include <charconv>
#include <string>
#include <vector>

struct Entry {
    int account;
    long long cents;
    std::string memo;
};

// An amount in cents as text with two decimals: 1205 -> "12.05", -7 -> "-0.07".
std::string format_amount(long long cents) {
    const bool negative = cents < 0;
    const unsigned long long magnitude = negative ? 0ULL - static_cast<unsigned long long>(cents)
                                                  : static_cast<unsigned long long>(cents);
    char buf[32];
    char* p = buf;
    if (negative) *p++ = '-';
    p = std::to_chars(p, buf + sizeof buf, magnitude / 100).ptr;
    const unsigned fraction = static_cast<unsigned>(magnitude % 100);
    *p++ = '.';
    *p++ = static_cast<char>('0' + fraction / 10);
    *p++ = static_cast<char>('0' + fraction % 10);
    return std::string(buf, p);
}

// The day's journal as CSV: a header line, then one "account,amount,memo" line per entry.
std::string export_journal(const std::vector<Entry>& entries) {
    std::string csv = "account,amount,memo\n";
    // Reserve once: an account (11 chars), an amount (22), two commas and a newline, plus the memo.
    std::size_t bytes = csv.size();
    for (const Entry& e : entries) bytes += 36 + e.memo.size();
    csv.reserve(bytes);
    char num[16];
    for (const Entry& e : entries) {
        csv.append(num, std::to_chars(num, num + sizeof num, e.account).ptr);
        csv += ',';
        csv += format_amount(e.cents);
        csv += ',';
        csv += e.memo;
        csv += '\n';
    }
    return csv;
}
