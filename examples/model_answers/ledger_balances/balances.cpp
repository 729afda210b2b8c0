#include <vector>

struct Posting {
    int account;
    int cents;
};

// End-of-day balance (in cents) of each requested account over the day's postings; an account
// with no postings has balance 0. The report may ask for the same account more than once.
std::vector<long long> account_balances(const std::vector<int>& accounts,
                                        const std::vector<Posting>& postings) {
    std::vector<long long> balances;
    for (int account : accounts) {
        long long total = 0;
        for (const Posting& p : postings) {
            if (p.account == account) total += p.cents;
        }
        balances.push_back(total);
    }
    return balances;
}
