"""Subtly wrong candidates, and a correct rewrite, for ordinary functions.

Each entry is an original function, one correct faster rewrite, and wrong rewrites of the kinds
models write: a sign, range, boundary, overflow, modulus, packing, character-class, ordering, NaN,
aliasing or race mistake that leaves most inputs unchanged. The runner must reject every wrong
one (or at worst call it weakly verified) and must never reject the correct one for bad inputs.
This set is for checking the verifier, not for tuning it: the rules of input generation are
general (value profiles, mutants, sanitizers), never shaped to these functions.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Wrong:
    """A wrong candidate and the kind of mistake it makes."""

    kind: str
    code: str


@dataclass(frozen=True)
class Entry:
    """An original unit, the function's name, a correct rewrite and wrong ones."""

    name: str
    language: str
    unit: str
    correct: str
    wrong: tuple[Wrong, ...]


CORPUS: tuple[Entry, ...] = (
    Entry("max_product", "cpp", """\
#include <cstddef>
#include <vector>

long max_product(const std::vector<int>& v) {
  if (v.size() < 2) return 0;
  long best = (long)v[0] * v[1];
  for (std::size_t i = 0; i < v.size(); ++i)
    for (std::size_t j = i + 1; j < v.size(); ++j) {
      long p = (long)v[i] * v[j];
      if (p > best) best = p;
    }
  return best;
}
""", """\
long max_product(const std::vector<int>& v) {
  if (v.size() < 2) return 0;
  long hi1 = -2147483649L, hi2 = -2147483649L, lo1 = 2147483648L, lo2 = 2147483648L;
  for (int x : v) {
    if (x > hi1) { hi2 = hi1; hi1 = x; } else if (x > hi2) { hi2 = x; }
    if (x < lo1) { lo2 = lo1; lo1 = x; } else if (x < lo2) { lo2 = x; }
  }
  long a = hi1 * hi2, b = lo1 * lo2;
  return a > b ? a : b;
}""", (
        Wrong("sign", """\
long max_product(const std::vector<int>& v) {
  if (v.size() < 2) return 0;
  long hi1 = -2147483649L, hi2 = -2147483649L;
  for (int x : v) {
    if (x > hi1) { hi2 = hi1; hi1 = x; } else if (x > hi2) { hi2 = x; }
  }
  return hi1 * hi2;
}"""),
        Wrong("overflow", """\
long max_product(const std::vector<int>& v) {
  if (v.size() < 2) return 0;
  int hi1 = -2147483647 - 1, hi2 = hi1, lo1 = 2147483647, lo2 = lo1;
  for (int x : v) {
    if (x > hi1) { hi2 = hi1; hi1 = x; } else if (x > hi2) { hi2 = x; }
    if (x < lo1) { lo2 = lo1; lo1 = x; } else if (x < lo2) { lo2 = x; }
  }
  long a = (long)(unsigned)(hi1 * hi2), b = (long)(unsigned)(lo1 * lo2);
  return a > b ? a : b;
}"""),
        Wrong("boundary", """\
long max_product(const std::vector<int>& v) {
  if (v.size() < 3) return 0;
  long hi1 = -2147483649L, hi2 = -2147483649L, lo1 = 2147483648L, lo2 = 2147483648L;
  for (int x : v) {
    if (x > hi1) { hi2 = hi1; hi1 = x; } else if (x > hi2) { hi2 = x; }
    if (x < lo1) { lo2 = lo1; lo1 = x; } else if (x < lo2) { lo2 = x; }
  }
  long a = hi1 * hi2, b = lo1 * lo2;
  return a > b ? a : b;
}"""),
        Wrong("sign", """\
long max_product(const std::vector<int>& v) {
  if (v.size() < 2) return 0;
  long best = 0;
  for (std::size_t i = 0; i < v.size(); ++i)
    for (std::size_t j = i + 1; j < v.size(); ++j) {
      long p = (long)v[i] * v[j];
      if (p > best) best = p;
    }
  return best;
}"""),
    )),
    Entry("count_members", "cpp", """\
#include <algorithm>
#include <cstddef>
#include <vector>

long count_members(const std::vector<int>& haystack, const std::vector<int>& queries) {
  long found = 0;
  for (std::size_t q = 0; q < queries.size(); ++q)
    for (std::size_t i = 0; i < haystack.size(); ++i)
      if (haystack[i] == queries[q]) { ++found; break; }
  return found;
}
""", """\
long count_members(const std::vector<int>& haystack, const std::vector<int>& queries) {
  std::vector<int> sorted(haystack);
  std::sort(sorted.begin(), sorted.end());
  long found = 0;
  for (int q : queries)
    if (std::binary_search(sorted.begin(), sorted.end(), q)) ++found;
  return found;
}""", (
        Wrong("sign", """\
long count_members(const std::vector<int>& haystack, const std::vector<int>& queries) {
  std::vector<int> sorted(haystack);
  std::sort(sorted.begin(), sorted.end());
  long found = 0;
  for (int q : queries)
    if (q >= 0 && std::binary_search(sorted.begin(), sorted.end(), q)) ++found;
  return found;
}"""),
        Wrong("ordering", """\
long count_members(const std::vector<int>& haystack, const std::vector<int>& queries) {
  std::vector<int> sorted(haystack);
  long found = 0;
  for (int q : queries)
    if (std::binary_search(sorted.begin(), sorted.end(), q)) ++found;
  return found;
}"""),
        Wrong("boundary", """\
long count_members(const std::vector<int>& haystack, const std::vector<int>& queries) {
  std::vector<int> sorted(haystack);
  std::sort(sorted.begin(), sorted.end());
  long found = 0;
  for (int q : queries) {
    auto it = std::lower_bound(sorted.begin(), sorted.end(), q);
    if (it != sorted.end() && it + 1 != sorted.end() && *it == q) ++found;
  }
  return found;
}"""),
        Wrong("duplicates", """\
long count_members(const std::vector<int>& haystack, const std::vector<int>& queries) {
  std::vector<int> sorted(haystack);
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> qs(queries);
  std::sort(qs.begin(), qs.end());
  qs.erase(std::unique(qs.begin(), qs.end()), qs.end());
  long found = 0;
  for (int q : qs)
    if (std::binary_search(sorted.begin(), sorted.end(), q)) ++found;
  return found;
}"""),
    )),
    Entry("count_upper", "c", """\
#include <ctype.h>
#include <string.h>

long count_upper(const char *s) {
    long c = 0;
    for (size_t i = 0; i < strlen(s); ++i)
        if (isupper((unsigned char)s[i]))
            ++c;
    return c;
}
""", """\
long count_upper(const char *s) {
    long c = 0;
    for (size_t i = 0, n = strlen(s); i < n; ++i)
        if (isupper((unsigned char)s[i]))
            ++c;
    return c;
}""", (
        Wrong("constant", """\
long count_upper(const char *s) {
    (void)s;
    return 0;
}"""),
        Wrong("character-class", """\
long count_upper(const char *s) {
    long c = 0;
    for (size_t i = 0, n = strlen(s); i < n; ++i)
        if (s[i] >= 'A' && s[i] <= 'z')
            ++c;
    return c;
}"""),
        Wrong("character-class", """\
long count_upper(const char *s) {
    long c = 0;
    for (size_t i = 0, n = strlen(s); i < n; ++i)
        if (isalpha((unsigned char)s[i]) && !islower((unsigned char)s[i]) && s[i] != 'Z')
            ++c;
    return c;
}"""),
        Wrong("boundary", """\
long count_upper(const char *s) {
    long c = 0;
    for (size_t i = 0, n = strlen(s); i < n && s[i] != ' '; ++i)
        if (isupper((unsigned char)s[i]))
            ++c;
    return c;
}"""),
    )),
    Entry("mean_abs", "cpp", """\
#include <cmath>
#include <cstddef>

double mean_abs(const double* a, std::size_t n) {
  if (n == 0) return 0.0;
  double s = 0.0;
  for (std::size_t i = 0; i < n; ++i) s += std::fabs(a[i]);
  return s / static_cast<double>(n);
}
""", """\
double mean_abs(const double* a, std::size_t n) {
  if (n == 0) return 0.0;
  double s = 0.0;
  const double* end = a + n;
  for (const double* p = a; p != end; ++p) s += *p < 0 ? -*p : *p;
  return s / static_cast<double>(n);
}""", (
        Wrong("sign", """\
double mean_abs(const double* a, std::size_t n) {
  if (n == 0) return 0.0;
  double s = 0.0;
  for (std::size_t i = 0; i < n; ++i) s += a[i];
  return std::fabs(s) / static_cast<double>(n);
}"""),
        Wrong("boundary", """\
double mean_abs(const double* a, std::size_t n) {
  if (n <= 1) return 0.0;
  double s = 0.0;
  for (std::size_t i = 0; i < n; ++i) s += std::fabs(a[i]);
  return s / static_cast<double>(n);
}"""),
        Wrong("precision", """\
double mean_abs(const double* a, std::size_t n) {
  if (n == 0) return 0.0;
  float s = 0.0f;
  for (std::size_t i = 0; i < n; ++i) s += std::fabs(static_cast<float>(a[i]));
  return s / static_cast<double>(n);
}"""),
        Wrong("nan", """\
double mean_abs(const double* a, std::size_t n) {
  if (n == 0) return 0.0;
  double s = 0.0;
  for (std::size_t i = 0; i < n; ++i) s += a[i] < 0 ? -a[i] : (a[i] > 0 ? a[i] : 0.0);
  return s / static_cast<double>(n);
}"""),
    )),
    Entry("mod_sum", "cpp", """\
#include <vector>

long mod_sum(const std::vector<int>& v, int m) {
  if (m == 0) return 0;
  long s = 0;
  for (int x : v) s += x % m;
  return s;
}
""", """\
long mod_sum(const std::vector<int>& v, int m) {
  if (m == 0) return 0;
  long s = 0;
  const int* p = v.data();
  for (std::size_t i = 0, n = v.size(); i < n; ++i) s += p[i] % m;
  return s;
}""", (
        Wrong("modulus", """\
long mod_sum(const std::vector<int>& v, int m) {
  if (m == 0) return 0;
  long s = 0;
  for (int x : v) s += ((x % m) + m) % m;
  return s;
}"""),
        Wrong("modulus", """\
long mod_sum(const std::vector<int>& v, int m) {
  if (m == 0) return 0;
  long s = 0;
  unsigned um = static_cast<unsigned>(m);
  for (int x : v) s += static_cast<long>(static_cast<unsigned>(x) % um);
  return s;
}"""),
        Wrong("modulus", """\
long mod_sum(const std::vector<int>& v, int m) {
  if (m == 0) return 0;
  long s = 0;
  for (int x : v) s += x & (m - 1);
  return s;
}"""),
    )),
    Entry("sum_in_range", "cpp", """\
#include <vector>

long sum_in_range(const std::vector<long>& v, long lo, long hi) {
  long s = 0;
  for (long x : v)
    if (x >= lo && x <= hi) s += x;
  return s;
}
""", """\
long sum_in_range(const std::vector<long>& v, long lo, long hi) {
  long s = 0;
  for (long x : v) s += (x >= lo) & (x <= hi) ? x : 0;
  return s;
}""", (
        Wrong("boundary", """\
long sum_in_range(const std::vector<long>& v, long lo, long hi) {
  long s = 0;
  for (long x : v)
    if (x >= lo && x < hi) s += x;
  return s;
}"""),
        Wrong("range", """\
long sum_in_range(const std::vector<long>& v, long lo, long hi) {
  if (lo > hi) { long t = lo; lo = hi; hi = t; }
  long s = 0;
  for (long x : v)
    if (x >= lo && x <= hi) s += x;
  return s;
}"""),
        Wrong("range", """\
long sum_in_range(const std::vector<long>& v, long lo, long hi) {
  long s = 0;
  for (long x : v)
    if (static_cast<unsigned long>(x - lo) <= static_cast<unsigned long>(hi - lo)) s += x;
  return s;
}"""),
        Wrong("boundary", """\
long sum_in_range(const std::vector<long>& v, long lo, long hi) {
  long s = 0;
  for (long x : v)
    if (x > lo && x <= hi) s += x;
  return s;
}"""),
    )),
    Entry("prefix_sums", "cpp", """\
#include <cstddef>
#include <vector>

void prefix_sums(std::vector<long>& v) {
  for (std::size_t i = 1; i < v.size(); ++i) v[i] += v[i - 1];
}
""", """\
void prefix_sums(std::vector<long>& v) {
  long run = 0;
  for (long& x : v) { run += x; x = run; }
}""", (
        Wrong("boundary", """\
void prefix_sums(std::vector<long>& v) {
  long run = 0;
  for (long& x : v) { long t = x; x = run; run += t; }
}"""),
        Wrong("boundary", """\
void prefix_sums(std::vector<long>& v) {
  for (std::size_t i = 2; i < v.size(); ++i) v[i] += v[i - 1];
}"""),
        Wrong("race", """\
void prefix_sums(std::vector<long>& v) {
  long n = static_cast<long>(v.size());
  #pragma omp parallel for
  for (long i = 1; i < n; ++i) v[i] += v[i - 1];
}"""),
    )),
    Entry("argmax", "cpp", """\
#include <cstddef>
#include <vector>

long argmax(const std::vector<double>& v) {
  if (v.empty()) return -1;
  std::size_t best = 0;
  for (std::size_t i = 1; i < v.size(); ++i)
    if (v[i] > v[best]) best = i;
  return static_cast<long>(best);
}
""", """\
long argmax(const std::vector<double>& v) {
  if (v.empty()) return -1;
  const double* p = v.data();
  std::size_t best = 0;
  double top = p[0];
  for (std::size_t i = 1, n = v.size(); i < n; ++i)
    if (p[i] > top) { top = p[i]; best = i; }
  return static_cast<long>(best);
}""", (
        Wrong("ordering", """\
long argmax(const std::vector<double>& v) {
  if (v.empty()) return -1;
  std::size_t best = 0;
  for (std::size_t i = 1; i < v.size(); ++i)
    if (v[i] >= v[best]) best = i;
  return static_cast<long>(best);
}"""),
        Wrong("sign", """\
long argmax(const std::vector<double>& v) {
  if (v.empty()) return -1;
  std::size_t best = 0;
  double top = 0.0;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i] > top) { top = v[i]; best = i; }
  return static_cast<long>(best);
}"""),
        Wrong("boundary", """\
long argmax(const std::vector<double>& v) {
  if (v.empty()) return 0;
  std::size_t best = 0;
  for (std::size_t i = 1; i < v.size(); ++i)
    if (v[i] > v[best]) best = i;
  return static_cast<long>(best);
}"""),
        Wrong("nan", """\
long argmax(const std::vector<double>& v) {
  if (v.empty()) return -1;
  std::size_t best = 0;
  for (std::size_t i = 1; i < v.size(); ++i)
    if (!(v[i] <= v[best])) best = i;
  return static_cast<long>(best);
}"""),
    )),
    Entry("dot", "c", """\
#include <stddef.h>

long dot(const int *a, const int *b, size_t n) {
    long s = 0;
    for (size_t i = 0; i < n; ++i)
        s += (long)a[i] * b[i];
    return s;
}
""", """\
long dot(const int *a, const int *b, size_t n) {
    long s0 = 0, s1 = 0;
    size_t i = 0;
    for (; i + 1 < n; i += 2) {
        s0 += (long)a[i] * b[i];
        s1 += (long)a[i + 1] * b[i + 1];
    }
    if (i < n) s0 += (long)a[i] * b[i];
    return s0 + s1;
}""", (
        Wrong("overflow", """\
long dot(const int *a, const int *b, size_t n) {
    unsigned s = 0;
    for (size_t i = 0; i < n; ++i)
        s += (unsigned)a[i] * (unsigned)b[i];
    return (long)(int)s;
}"""),
        Wrong("boundary", """\
long dot(const int *a, const int *b, size_t n) {
    long s0 = 0, s1 = 0;
    size_t i = 0;
    for (; i + 1 < n; i += 2) {
        s0 += (long)a[i] * b[i];
        s1 += (long)a[i + 1] * b[i + 1];
    }
    return s0 + s1;
}"""),
        Wrong("overflow", """\
long dot(const int *a, const int *b, size_t n) {
    long s = 0;
    for (size_t i = 0; i < n; ++i)
        s += (long)(short)a[i] * b[i];
    return s;
}"""),
    )),
    Entry("smooth", "c", """\
#include <stddef.h>

void smooth(const double *input, double *output, size_t n) {
    for (size_t i = 0; i + 1 < n; ++i)
        output[i] = 0.5 * (input[i] + input[i + 1]);
}
""", """\
void smooth(const double *input, double *output, size_t n) {
    if (n < 2) return;
    for (size_t i = 0; i < n - 1; ++i)
        output[i] = 0.5 * (input[i] + input[i + 1]);
}""", (
        Wrong("boundary", """\
void smooth(const double *input, double *output, size_t n) {
    for (size_t i = 0; i < n - 1; ++i)
        output[i] = 0.5 * (input[i] + input[i + 1]);
}"""),
        Wrong("aliasing", """\
void smooth(const double *input, double *output, size_t n) {
    if (n < 2) return;
    double next = input[n - 1];
    for (size_t i = n - 1; i-- > 0;) {
        double cur = input[i];
        output[i] = 0.5 * (cur + next);
        next = cur;
    }
}"""),
        Wrong("precision", """\
void smooth(const double *input, double *output, size_t n) {
    for (size_t i = 0; i + 1 < n; ++i)
        output[i] = (float)(0.5 * (input[i] + input[i + 1]));
}"""),
    )),
    Entry("is_nonincreasing", "cpp", """\
#include <algorithm>
#include <cstddef>
#include <vector>

bool is_nonincreasing(const std::vector<int>& v) {
  for (std::size_t i = 1; i < v.size(); ++i)
    if (v[i] > v[i - 1]) return false;
  return true;
}
""", """\
bool is_nonincreasing(const std::vector<int>& v) {
  return std::is_sorted(v.rbegin(), v.rend());
}""", (
        Wrong("ordering", """\
bool is_nonincreasing(const std::vector<int>& v) {
  for (std::size_t i = 1; i < v.size(); ++i)
    if (v[i] >= v[i - 1]) return false;
  return true;
}"""),
        Wrong("boundary", """\
bool is_nonincreasing(const std::vector<int>& v) {
  if (v.empty()) return false;
  return std::is_sorted(v.rbegin(), v.rend());
}"""),
        Wrong("ordering", """\
bool is_nonincreasing(const std::vector<int>& v) {
  return std::is_sorted(v.begin(), v.end());
}"""),
    )),
    Entry("min_finite", "cpp", """\
#include <cmath>
#include <vector>

double min_finite(const std::vector<double>& v) {
  double m = INFINITY;
  for (double x : v)
    if (std::isfinite(x) && x < m) m = x;
  return m;
}
""", """\
double min_finite(const std::vector<double>& v) {
  double m = INFINITY;
  const double* p = v.data();
  for (std::size_t i = 0, n = v.size(); i < n; ++i) {
    double x = p[i];
    if (x - x == 0.0 && x < m) m = x;
  }
  return m;
}""", (
        Wrong("nan", """\
double min_finite(const std::vector<double>& v) {
  double m = INFINITY;
  for (double x : v)
    if (x < m) m = x;
  return m;
}"""),
        Wrong("nan", """\
double min_finite(const std::vector<double>& v) {
  double m = INFINITY;
  for (double x : v)
    if (!std::isnan(x)) m = std::fmin(m, x);
  return m;
}"""),
        Wrong("sign", """\
double min_finite(const std::vector<double>& v) {
  double m = INFINITY;
  for (double x : v)
    if (std::isfinite(x) && std::fabs(x) < std::fabs(m)) m = x;
  return m;
}"""),
    )),
    Entry("byte_hash", "cpp", """\
#include <string>

unsigned long byte_hash(const std::string& s) {
  unsigned long h = 1469598103934665603UL;
  for (std::size_t i = 0; i < s.size(); ++i) {
    h ^= static_cast<unsigned char>(s[i]);
    h *= 1099511628211UL;
  }
  return h;
}
""", """\
unsigned long byte_hash(const std::string& s) {
  unsigned long h = 1469598103934665603UL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211UL;
  }
  return h;
}""", (
        Wrong("character-class", """\
unsigned long byte_hash(const std::string& s) {
  unsigned long h = 1469598103934665603UL;
  for (char c : s) {
    h ^= static_cast<unsigned long>(c);
    h *= 1099511628211UL;
  }
  return h;
}"""),
        Wrong("boundary", """\
unsigned long byte_hash(const std::string& s) {
  unsigned long h = 1469598103934665603UL;
  for (const char* p = s.c_str(); *p; ++p) {
    h ^= static_cast<unsigned char>(*p);
    h *= 1099511628211UL;
  }
  return h;
}"""),
        Wrong("character-class", """\
unsigned long byte_hash(const std::string& s) {
  unsigned long h = 1469598103934665603UL;
  for (unsigned char c : s) {
    h ^= c & 0x7f;
    h *= 1099511628211UL;
  }
  return h;
}"""),
    )),
    Entry("count_pairs_with_sum", "cpp", """\
#include <cstddef>
#include <unordered_map>
#include <unordered_set>
#include <vector>

long count_pairs_with_sum(const std::vector<int>& v, int target) {
  long c = 0;
  for (std::size_t i = 0; i < v.size(); ++i)
    for (std::size_t j = i + 1; j < v.size(); ++j)
      if ((long)v[i] + v[j] == target) ++c;
  return c;
}
""", """\
long count_pairs_with_sum(const std::vector<int>& v, int target) {
  std::unordered_map<long, long> seen;
  long c = 0;
  for (int x : v) {
    auto it = seen.find((long)target - x);
    if (it != seen.end()) c += it->second;
    ++seen[x];
  }
  return c;
}""", (
        Wrong("duplicates", """\
long count_pairs_with_sum(const std::vector<int>& v, int target) {
  std::unordered_set<long> seen;
  long c = 0;
  for (int x : v) {
    if (seen.count((long)target - x)) ++c;
    seen.insert(x);
  }
  return c;
}"""),
        Wrong("boundary", """\
long count_pairs_with_sum(const std::vector<int>& v, int target) {
  std::unordered_map<long, long> seen;
  long c = 0;
  for (int x : v) {
    ++seen[x];
    auto it = seen.find((long)target - x);
    if (it != seen.end()) c += it->second;
  }
  return c;
}"""),
        Wrong("overflow", """\
long count_pairs_with_sum(const std::vector<int>& v, int target) {
  std::unordered_map<int, long> seen;
  long c = 0;
  for (int x : v) {
    auto it = seen.find((int)((unsigned)target - (unsigned)x));
    if (it != seen.end()) c += it->second;
    ++seen[x];
  }
  return c;
}"""),
    )),
    Entry("most_repeats", "cpp", """\
#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

int most_repeats(const std::vector<std::string>& w) {
  int best = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    int c = 0;
    for (std::size_t j = 0; j < w.size(); ++j)
      if (w[j] == w[i]) ++c;
    if (c > best) best = c;
  }
  return best;
}
""", """\
int most_repeats(const std::vector<std::string>& w) {
  std::unordered_map<std::string, int> count;
  int best = 0;
  for (const std::string& s : w) {
    int c = ++count[s];
    if (c > best) best = c;
  }
  return best;
}""", (
        Wrong("ordering", """\
int most_repeats(const std::vector<std::string>& w) {
  int best = w.empty() ? 0 : 1, run = 1;
  for (std::size_t i = 1; i < w.size(); ++i) {
    run = w[i] == w[i - 1] ? run + 1 : 1;
    if (run > best) best = run;
  }
  return best;
}"""),
    )),
    Entry("distinct_pairs", "cpp", """\
#include <cstddef>
#include <set>
#include <unordered_set>
#include <utility>
#include <vector>

long distinct_pairs(const std::vector<int>& a, const std::vector<int>& b) {
  std::set<std::pair<int, int>> seen;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) seen.insert({a[i], b[i]});
  return (long)seen.size();
}
""", """\
long distinct_pairs(const std::vector<int>& a, const std::vector<int>& b) {
  std::size_t n = a.size() < b.size() ? a.size() : b.size();
  std::unordered_set<unsigned long long> seen;
  seen.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    seen.insert(((unsigned long long)(unsigned)a[i] << 32) | (unsigned)b[i]);
  return (long)seen.size();
}""", (
        Wrong("packing base", """\
long distinct_pairs(const std::vector<int>& a, const std::vector<int>& b) {
  std::size_t n = a.size() < b.size() ? a.size() : b.size();
  std::unordered_set<long long> seen;
  seen.reserve(n);
  for (std::size_t i = 0; i < n; ++i) seen.insert((long long)a[i] * 100000 + b[i]);
  return (long)seen.size();
}"""),
        Wrong("packing mask", """\
long distinct_pairs(const std::vector<int>& a, const std::vector<int>& b) {
  std::size_t n = a.size() < b.size() ? a.size() : b.size();
  std::unordered_set<unsigned long long> seen;
  seen.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    seen.insert(((unsigned long long)(unsigned)a[i] << 16) | (b[i] & 0xFFFF));
  return (long)seen.size();
}"""),
    )),
)


def wrong_count() -> int:
    """How many wrong candidates the corpus holds."""
    return sum(len(e.wrong) for e in CORPUS)
