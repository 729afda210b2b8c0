#include <vector>
#include <unordered_map>

struct Posting {
    int account;
    int cents;
};

// End-of-day balance (in cents) of each requested account over the day's postings; an account
// with no postings has balance 0. The report may ask for the same account more than once.
std::vector<long long> account_balances(const std::vector<int>& accounts,
                                        const std::vector<Posting>& postings) {
    // One pass over the postings builds every account's total...
    std::unordered_map<int, long long> totals;
    totals.reserve(postings.size());
    for (const Posting& p : postings) {
        totals[p.account] += p.cents;
    }

    // ...and each requested account is then a single lookup.
    std::vector<long long> balances;
    balances.reserve(accounts.size());
    for (int account : accounts) {
        auto it = totals.find(account);
        balances.push_back(it != totals.end() ? it->second : 0);
    }
    return balances;
}
