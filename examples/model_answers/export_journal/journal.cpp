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
    std::string fraction = std::to_string(magnitude % 100);
    if (fraction.size() < 2) fraction = "0" + fraction;
    return (negative ? "-" : "") + std::to_string(magnitude / 100) + "." + fraction;
}

// The day's journal as CSV: a header line, then one "account,amount,memo" line per entry.
std::string export_journal(const std::vector<Entry>& entries) {
    std::string csv = "account,amount,memo\n";
    for (const Entry& e : entries) {
        csv = csv + std::to_string(e.account) + "," + format_amount(e.cents) + "," + e.memo + "\n";
    }
    return csv;
}
