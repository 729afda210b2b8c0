// perfpilot-corpus: total_balance, apply_transactions, balances_by_owner, overdrawn_ids
// Accounts and transactions as plain structs with an enum, as in a ledger service.
#include <map>
#include <string>
#include <vector>

enum class TxKind { Deposit, Withdraw, Transfer };

struct Account {
  int id;
  std::string owner;
  double balance;
};

struct Transaction {
  int from;
  int to;
  double amount;
  TxKind kind;
};

double total_balance(const std::vector<Account>& accounts) {
  double sum = 0.0;
  for (const auto& a : accounts) sum += a.balance;
  return sum;
}

void apply_transactions(std::vector<Account>& accounts, const std::vector<Transaction>& txs) {
  const int n = static_cast<int>(accounts.size());
  for (const auto& t : txs) {
    if (t.from < 0 || t.from >= n || t.to < 0 || t.to >= n) continue;
    switch (t.kind) {
      case TxKind::Deposit: accounts[t.to].balance += t.amount; break;
      case TxKind::Withdraw: accounts[t.from].balance -= t.amount; break;
      case TxKind::Transfer:
        accounts[t.from].balance -= t.amount;
        accounts[t.to].balance += t.amount;
        break;
    }
  }
}

std::map<std::string, double> balances_by_owner(const std::vector<Account>& accounts) {
  std::map<std::string, double> out;
  for (const auto& a : accounts) out[a.owner] += a.balance;
  return out;
}

std::vector<int> overdrawn_ids(const std::vector<Account>& accounts, double limit) {
  std::vector<int> ids;
  for (const auto& a : accounts)
    if (a.balance < limit) ids.push_back(a.id);
  return ids;
}
