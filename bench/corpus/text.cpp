// perfpilot-corpus: tokenize, word_freq, unique_words, longest_run
// A small tokenizer and word statistics, as in a text-processing utility.
#include <cctype>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

enum class TokenKind { Word, Number, Punct };

struct Token {
  TokenKind kind;
  std::string text;
};

std::vector<Token> tokenize(const std::string& s) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (std::isspace(c)) {
      ++i;
    } else if (std::isalpha(c)) {
      std::size_t j = i;
      while (j < s.size() && std::isalpha(static_cast<unsigned char>(s[j]))) ++j;
      out.push_back({TokenKind::Word, s.substr(i, j - i)});
      i = j;
    } else if (std::isdigit(c)) {
      std::size_t j = i;
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      out.push_back({TokenKind::Number, s.substr(i, j - i)});
      i = j;
    } else {
      out.push_back({TokenKind::Punct, std::string(1, s[i])});
      ++i;
    }
  }
  return out;
}

std::unordered_map<std::string, int> word_freq(const std::vector<std::string>& words) {
  std::unordered_map<std::string, int> freq;
  for (const auto& w : words) ++freq[w];
  return freq;
}

std::set<std::string> unique_words(const std::vector<std::string>& words, std::size_t min_len) {
  std::set<std::string> out;
  for (const auto& w : words)
    if (w.size() >= min_len) out.insert(w);
  return out;
}

std::pair<char, int> longest_run(const std::string& s) {
  std::pair<char, int> best{'\0', 0};
  int run = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    run = (i > 0 && s[i] == s[i - 1]) ? run + 1 : 1;
    if (run > best.second) best = {s[i], run};
  }
  return best;
}
