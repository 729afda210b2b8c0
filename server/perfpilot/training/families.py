"""Templates of slow C++ functions with known faster rewrites, two families per category.

Each family is a slow function and its fast rewrite written over placeholders (``$fn`` the
function name, ``$T`` the element type, ``$v``/``$w`` container names, ``$i`` the index, ``$K``
a size constant, ``$LOOP`` the loop header over ``$v``). Integer arithmetic goes through
``unsigned long long`` so that no input value makes either side undefined. Parameters are
plain data the generated harness builds (vectors, nested vectors, strings, scalars).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Family:
    """One template: its category, the slow and fast function, what it needs."""

    name: str
    category: int
    explanation: str  # the known strategy, phrased for a plan
    slow: str
    fast: str
    types: tuple[str, ...] = ("int", "long", "unsigned", "long long")
    includes: tuple[str, ...] = ("cstddef", "vector")
    helper: str = ""  # code the unit needs above the function (same in slow and fast)
    fast_includes: tuple[str, ...] = ()
    openmp: bool = False
    loops: bool = True  # whether $LOOP shapes vary


INT = ("int", "long", "unsigned", "long long")
FLOAT = ("double", "float")

FAMILIES: tuple[Family, ...] = (
    # 1 Algorithm Design Optimization
    Family("prefix-recompute", 1,
           "Each prefix sum is recomputed from the start, O(n^2); keep one running sum.",
           """unsigned long long $fn(const std::vector<$T>& $v) {
  unsigned long long total = 0;
  $LOOP {
    unsigned long long run = 0;
    for (std::size_t j = 0; j <= $i; ++j) run += (unsigned long long)$v[j];
    total += run;
  }
  return total;
}""",
           """unsigned long long $fn(const std::vector<$T>& $v) {
  unsigned long long total = 0, run = 0;
  for (std::size_t $i = 0; $i < $v.size(); ++$i) {
    run += (unsigned long long)$v[$i];
    total += run;
  }
  return total;
}"""),
    Family("max-pair-sum", 1,
           "All pairs are compared, O(n^2); the largest pair sum is the two largest values.",
           """long long $fn(const std::vector<$T>& $v) {
  if ($v.size() < 2) return 0;
  long long best = (long long)$v[0] + (long long)$v[1];
  $LOOP {
    for (std::size_t j = $i + 1; j < $v.size(); ++j) {
      long long s = (long long)$v[$i] + (long long)$v[j];
      if (s > best) best = s;
    }
  }
  return best;
}""",
           """long long $fn(const std::vector<$T>& $v) {
  if ($v.size() < 2) return 0;
  long long a = (long long)$v[0], b = (long long)$v[1];
  if (b > a) { long long t = a; a = b; b = t; }
  for (std::size_t $i = 2; $i < $v.size(); ++$i) {
    long long x = (long long)$v[$i];
    if (x > a) { b = a; a = x; } else if (x > b) { b = x; }
  }
  return a + b;
}""", types=("int", "short", "unsigned short")),
    # 2 Data Structure Selection
    Family("distinct-linear", 2,
           "Membership is checked by a linear scan of a vector, O(n^2); use a hash set.",
           """std::size_t $fn(const std::vector<$T>& $v) {
  std::vector<$T> seen;
  $LOOP {
    if (std::find(seen.begin(), seen.end(), $v[$i]) == seen.end()) seen.push_back($v[$i]);
  }
  return seen.size();
}""",
           """std::size_t $fn(const std::vector<$T>& $v) {
  std::unordered_set<$T> seen($v.begin(), $v.end());
  return seen.size();
}""", includes=("cstddef", "vector", "algorithm"), fast_includes=("unordered_set",)),
    Family("common-linear", 2,
           "Each element is searched for in the other vector linearly; build a hash set once.",
           """std::size_t $fn(const std::vector<$T>& $v, const std::vector<$T>& $w) {
  std::size_t c = 0;
  $LOOP {
    if (std::find($w.begin(), $w.end(), $v[$i]) != $w.end()) ++c;
  }
  return c;
}""",
           """std::size_t $fn(const std::vector<$T>& $v, const std::vector<$T>& $w) {
  std::unordered_set<$T> in($w.begin(), $w.end());
  std::size_t c = 0;
  for (std::size_t $i = 0; $i < $v.size(); ++$i) c += in.count($v[$i]);
  return c;
}""", includes=("cstddef", "vector", "algorithm"), fast_includes=("unordered_set",)),
    # 3 Memory Usage and Allocation
    Family("copy-in-loop", 3,
           "The whole vector is copied on every iteration; read the original instead.",
           """unsigned long long $fn(const std::vector<$T>& $v) {
  unsigned long long s = 0;
  $LOOP {
    std::vector<$T> copy = $v;
    s += (unsigned long long)copy[$i] * ($i + 1);
  }
  return s;
}""",
           """unsigned long long $fn(const std::vector<$T>& $v) {
  unsigned long long s = 0;
  for (std::size_t $i = 0; $i < $v.size(); ++$i) s += (unsigned long long)$v[$i] * ($i + 1);
  return s;
}"""),
    Family("string-rebuild", 3,
           "s = s + x copies the whole string each time; append in place with +=.",
           """std::size_t $fn(const std::string& $v) {
  std::string out;
  $LOOP {
    out = out + $v[$i];
    if ($v[$i] == ' ') out = out + ',';
  }
  return out.size() * 31 + (out.empty() ? 0 : (unsigned char)out.back());
}""",
           """std::size_t $fn(const std::string& $v) {
  std::string out;
  out.reserve($v.size() * 2);
  for (std::size_t $i = 0; $i < $v.size(); ++$i) {
    out += $v[$i];
    if ($v[$i] == ' ') out += ',';
  }
  return out.size() * 31 + (out.empty() ? 0 : (unsigned char)out.back());
}""", types=("char",), includes=("cstddef", "string")),
    # 4 Loop Efficiency Techniques
    Family("invariant-call", 4,
           "The largest value is recomputed in every iteration; compute it once before the loop.",
           """std::size_t $fn(const std::vector<$T>& $v) {
  std::size_t c = 0;
  $LOOP {
    if ($v[$i] == largest_of($v)) ++c;
  }
  return c;
}""",
           """std::size_t $fn(const std::vector<$T>& $v) {
  std::size_t c = 0;
  const $T top = largest_of($v);
  for (std::size_t $i = 0; $i < $v.size(); ++$i)
    if ($v[$i] == top) ++c;
  return c;
}""", helper="""static $T largest_of(const std::vector<$T>& xs) {
  $T m = xs.empty() ? $T() : xs[0];
  for (std::size_t k = 1; k < xs.size(); ++k) if (xs[k] > m) m = xs[k];
  return m;
}"""),
    Family("no-early-exit", 4,
           "The loop keeps scanning after the answer is known; return at the first match.",
           """bool $fn(const std::vector<$T>& $v, $T key) {
  bool found = false;
  $LOOP {
    if ($v[$i] == key) found = true;
  }
  return found;
}""",
           """bool $fn(const std::vector<$T>& $v, $T key) {
  for (std::size_t $i = 0; $i < $v.size(); ++$i)
    if ($v[$i] == key) return true;
  return false;
}"""),
    # 5 Compiler Configuration and Tuning
    Family("volatile-acc", 5,
           "A volatile accumulator forbids keeping the sum in a register and vectorizing.",
           """unsigned long long $fn(const std::vector<$T>& $v) {
  volatile unsigned long long s = 0;
  $LOOP {
    s = s + (unsigned long long)$v[$i] * 3u;
  }
  return s;
}""",
           """unsigned long long $fn(const std::vector<$T>& $v) {
  unsigned long long s = 0;
  for (std::size_t $i = 0; $i < $v.size(); ++$i) s += (unsigned long long)$v[$i] * 3u;
  return s;
}"""),
    Family("optimize-off", 5,
           "The function is compiled without optimization by an attribute; drop it.",
           """__attribute__((optimize("O0"))) unsigned long long $fn(const std::vector<$T>& $v) {
  unsigned long long s = 0;
  $LOOP {
    s += (unsigned long long)$v[$i] ^ ($i * 7u);
  }
  return s;
}""",
           """unsigned long long $fn(const std::vector<$T>& $v) {
  unsigned long long s = 0;
  for (std::size_t $i = 0; $i < $v.size(); ++$i) s += (unsigned long long)$v[$i] ^ ($i * 7u);
  return s;
}"""),
    # 6 Multithreading and Concurrency
    Family("parallel-reduce", 6,
           "The iterations are independent; an OpenMP parallel reduction splits them.",
           """double $fn(const std::vector<$T>& $v) {
  double s = 0.0;
  $LOOP {
    double x = (double)$v[$i];
    s += std::sqrt(std::fabs(x)) * std::sin(x);
  }
  return s;
}""",
           """double $fn(const std::vector<$T>& $v) {
  double s = 0.0;
  const long long n = (long long)$v.size();
#pragma omp parallel for reduction(+ : s)
  for (long long $i = 0; $i < n; ++$i) {
    double x = (double)$v[$i];
    s += std::sqrt(std::fabs(x)) * std::sin(x);
  }
  return s;
}""", types=FLOAT, includes=("cstddef", "vector", "cmath"), openmp=True),
    Family("parallel-map", 6,
           "Each element is updated independently; an OpenMP parallel for splits the loop.",
           """void $fn(std::vector<$T>& $v) {
  $LOOP {
    $v[$i] = std::exp(-std::fabs($v[$i])) * std::cos($v[$i]);
  }
}""",
           """void $fn(std::vector<$T>& $v) {
  const long long n = (long long)$v.size();
#pragma omp parallel for
  for (long long $i = 0; $i < n; ++$i)
    $v[$i] = std::exp(-std::fabs($v[$i])) * std::cos($v[$i]);
}""", types=FLOAT, includes=("cstddef", "vector", "cmath"), openmp=True),
    # 7 Data Locality and Cache Awareness
    Family("column-walk", 7,
           "The matrix is walked column by column across rows; walk each row in storage order.",
           """unsigned long long $fn(const std::vector<std::vector<$T>>& $v) {
  unsigned long long s = 0;
  const std::size_t cols = $v.empty() ? 0 : $v[0].size();
  for (std::size_t j = 0; j < cols; ++j)
    for (std::size_t $i = 0; $i < $v.size(); ++$i)
      if (j < $v[$i].size()) s += (unsigned long long)$v[$i][j] * (j + 1);
  return s;
}""",
           """unsigned long long $fn(const std::vector<std::vector<$T>>& $v) {
  unsigned long long s = 0;
  const std::size_t cols = $v.empty() ? 0 : $v[0].size();
  for (std::size_t $i = 0; $i < $v.size(); ++$i) {
    const std::size_t m = $v[$i].size() < cols ? $v[$i].size() : cols;
    for (std::size_t j = 0; j < m; ++j) s += (unsigned long long)$v[$i][j] * (j + 1);
  }
  return s;
}""", loops=False),
    Family("strided-flat", 7,
           "A flat row-major matrix is read with a stride of a whole row; read it sequentially.",
           """unsigned long long $fn(const std::vector<$T>& $v) {
  const std::size_t w = $K, h = $v.size() / $K;
  unsigned long long s = 0;
  for (std::size_t c = 0; c < w; ++c)
    for (std::size_t r = 0; r < h; ++r) s += (unsigned long long)$v[r * w + c] * (c + 1);
  return s;
}""",
           """unsigned long long $fn(const std::vector<$T>& $v) {
  const std::size_t w = $K, h = $v.size() / $K;
  unsigned long long s = 0;
  for (std::size_t r = 0; r < h; ++r)
    for (std::size_t c = 0; c < w; ++c) s += (unsigned long long)$v[r * w + c] * (c + 1);
  return s;
}""", loops=False),
    # 8 Input/Output Throughput Optimization
    Family("endl-stream", 8,
           "std::endl flushes the stream on every line; write '\\n' instead.",
           """std::size_t $fn(const std::vector<$T>& $v) {
  std::ostringstream os;
  $LOOP {
    os << $v[$i] << std::endl;
  }
  return os.str().size();
}""",
           """std::size_t $fn(const std::vector<$T>& $v) {
  std::ostringstream os;
  for (std::size_t $i = 0; $i < $v.size(); ++$i) os << $v[$i] << '\\n';
  return os.str().size();
}""", includes=("cstddef", "vector", "sstream", "ostream")),
    Family("stream-per-item", 8,
           "A string stream is built for every element; format with std::to_string into one "
           "buffer.",
           """std::size_t $fn(const std::vector<$T>& $v) {
  std::string out;
  $LOOP {
    std::ostringstream t;
    t << $v[$i] << ';';
    out += t.str();
  }
  return out.size();
}""",
           """std::size_t $fn(const std::vector<$T>& $v) {
  std::string out;
  for (std::size_t $i = 0; $i < $v.size(); ++$i) {
    out += std::to_string($v[$i]);
    out += ';';
  }
  return out.size();
}""", includes=("cstddef", "vector", "sstream", "string")),
    # 9 Instruction-Level Execution Optimization
    Family("bit-loop-popcount", 9,
           "Bits are counted one at a time in a loop; use the popcount instruction.",
           """unsigned long long $fn(const std::vector<$T>& $v) {
  unsigned long long c = 0;
  $LOOP {
    unsigned long long x = (unsigned long long)$v[$i];
    while (x) { c += x & 1u; x >>= 1; }
  }
  return c;
}""",
           """unsigned long long $fn(const std::vector<$T>& $v) {
  unsigned long long c = 0;
  for (std::size_t $i = 0; $i < $v.size(); ++$i)
    c += (unsigned long long)__builtin_popcountll((unsigned long long)$v[$i]);
  return c;
}""", types=("unsigned", "unsigned long", "unsigned long long")),
    Family("serial-dependency", 9,
           "Every multiply-add waits for the previous one; split into independent chains.",
           """unsigned long long $fn(const std::vector<$T>& $v) {
  unsigned long long h = 0;
  $LOOP {
    h = h * 31u + (unsigned long long)$v[$i] % 7u;
  }
  return h;
}""",
           """unsigned long long $fn(const std::vector<$T>& $v) {
  unsigned long long h = 0;
  const std::size_t n = $v.size();
  std::size_t $i = 0;
  for (; $i + 4 <= n; $i += 4) {
    h = h * 923521u + ((unsigned long long)$v[$i] % 7u) * 29791u
        + ((unsigned long long)$v[$i + 1] % 7u) * 961u
        + ((unsigned long long)$v[$i + 2] % 7u) * 31u + (unsigned long long)$v[$i + 3] % 7u;
  }
  for (; $i < n; ++$i) h = h * 31u + (unsigned long long)$v[$i] % 7u;
  return h;
}"""),
    # 10 Function Call Overhead Reduction
    Family("by-value-vector", 10,
           "The vector is passed by value and copied on every call; take a const reference.",
           """unsigned long long $fn(std::vector<$T> $v) {
  unsigned long long s = 0;
  $LOOP {
    s += (unsigned long long)$v[$i];
  }
  return s;
}""",
           """unsigned long long $fn(const std::vector<$T>& $v) {
  unsigned long long s = 0;
  for (std::size_t $i = 0; $i < $v.size(); ++$i) s += (unsigned long long)$v[$i];
  return s;
}"""),
    Family("std-function-call", 10,
           "Each element goes through a std::function call the compiler cannot inline.",
           """unsigned long long $fn(const std::vector<$T>& $v) {
  std::function<unsigned long long(unsigned long long)> f =
      [](unsigned long long x) { return x * 3u + 1u; };
  unsigned long long s = 0;
  $LOOP {
    s += f((unsigned long long)$v[$i]);
  }
  return s;
}""",
           """unsigned long long $fn(const std::vector<$T>& $v) {
  unsigned long long s = 0;
  for (std::size_t $i = 0; $i < $v.size(); ++$i) s += (unsigned long long)$v[$i] * 3u + 1u;
  return s;
}""", includes=("cstddef", "vector", "functional")),
    # 11 Branching Efficiency
    Family("invariant-branch", 11,
           "The branch tests a value that never changes in the loop; decide it once outside.",
           """unsigned long long $fn(const std::vector<$T>& $v, int mode) {
  unsigned long long s = 0;
  $LOOP {
    if (mode > 0) s += (unsigned long long)$v[$i];
    else s -= (unsigned long long)$v[$i];
  }
  return s;
}""",
           """unsigned long long $fn(const std::vector<$T>& $v, int mode) {
  unsigned long long s = 0;
  for (std::size_t $i = 0; $i < $v.size(); ++$i) s += (unsigned long long)$v[$i];
  return mode > 0 ? s : 0ull - s;
}"""),
    Family("unpredictable-branch", 11,
           "A data-dependent branch mispredicts on random data; select without branching.",
           """unsigned long long $fn(const std::vector<$T>& $v, $T limit) {
  unsigned long long s = 0;
  $LOOP {
    if ($v[$i] > limit) {
      s += (unsigned long long)$v[$i];
    }
  }
  return s;
}""",
           """unsigned long long $fn(const std::vector<$T>& $v, $T limit) {
  unsigned long long s = 0;
  for (std::size_t $i = 0; $i < $v.size(); ++$i)
    s += (unsigned long long)$v[$i] & (0ull - (unsigned long long)($v[$i] > limit));
  return s;
}"""),
    # 12 Numerical Computation Optimization
    Family("pow-square", 12,
           "std::pow with a small integer exponent is a slow library call; multiply instead.",
           """double $fn(const std::vector<$T>& $v) {
  double s = 0.0;
  $LOOP {
    s += std::pow((double)$v[$i], 2) + std::pow((double)$v[$i], 3);
  }
  return s;
}""",
           """double $fn(const std::vector<$T>& $v) {
  double s = 0.0;
  for (std::size_t $i = 0; $i < $v.size(); ++$i) {
    const double x = (double)$v[$i];
    s += x * x + x * x * x;
  }
  return s;
}""", types=FLOAT, includes=("cstddef", "vector", "cmath")),
    Family("divide-each", 12,
           "Every term is divided by the same count; sum first and divide once.",
           """double $fn(const std::vector<$T>& $v) {
  double mean = 0.0;
  $LOOP {
    mean += (double)$v[$i] / (double)$v.size();
  }
  return mean;
}""",
           """double $fn(const std::vector<$T>& $v) {
  if ($v.empty()) return 0.0;
  double s = 0.0;
  for (std::size_t $i = 0; $i < $v.size(); ++$i) s += (double)$v[$i];
  return s / (double)$v.size();
}""", types=FLOAT),
    # 13 Hardware-Aware System Optimization
    Family("aliasing-axpy", 13,
           "The compiler must assume the two vectors alias; restrict pointers and ask for SIMD.",
           """void $fn(std::vector<$T>& $v, const std::vector<$T>& $w) {
  const std::size_t n = $v.size() < $w.size() ? $v.size() : $w.size();
  for (std::size_t $i = 0; $i < n; ++$i) $v[$i] = $v[$i] * 0.5f + $w[$i] * 1.5f;
}""",
           """void $fn(std::vector<$T>& $v, const std::vector<$T>& $w) {
  const std::size_t n = $v.size() < $w.size() ? $v.size() : $w.size();
  $T* __restrict a = $v.data();
  const $T* __restrict b = $w.data();
#pragma omp simd
  for (std::size_t $i = 0; $i < n; ++$i) a[$i] = a[$i] * 0.5f + b[$i] * 1.5f;
}""", types=FLOAT, loops=False),
    Family("leading-zeros", 13,
           "Leading zero bits are found by shifting; the hardware counts them in one instruction.",
           """unsigned long long $fn(const std::vector<$T>& $v) {
  unsigned long long c = 0;
  $LOOP {
    unsigned long long x = (unsigned long long)$v[$i];
    int z = 64;
    while (x) { --z; x >>= 1; }
    c += (unsigned long long)z;
  }
  return c;
}""",
           """unsigned long long $fn(const std::vector<$T>& $v) {
  unsigned long long c = 0;
  for (std::size_t $i = 0; $i < $v.size(); ++$i) {
    const unsigned long long x = (unsigned long long)$v[$i];
    c += x ? (unsigned long long)__builtin_clzll(x) : 64u;
  }
  return c;
}""", types=("unsigned", "unsigned long", "unsigned long long")),
    # 14 Resource Lifetime and Scope Management
    Family("container-in-loop", 14,
           "A vector is constructed and freed on every iteration; hoist it and clear it.",
           """unsigned long long $fn(const std::vector<$T>& $v) {
  unsigned long long s = 0;
  $LOOP {
    std::vector<unsigned long long> parts;
    for (std::size_t k = 0; k < 8; ++k) parts.push_back((unsigned long long)$v[$i] >> k);
    for (std::size_t k = 0; k < parts.size(); ++k) s += parts[k];
  }
  return s;
}""",
           """unsigned long long $fn(const std::vector<$T>& $v) {
  unsigned long long s = 0;
  for (std::size_t $i = 0; $i < $v.size(); ++$i)
    for (std::size_t k = 0; k < 8; ++k) s += (unsigned long long)$v[$i] >> k;
  return s;
}"""),
    Family("substr-temporary", 14,
           "substr builds a temporary string per position; compare in place.",
           """std::size_t $fn(const std::string& $v) {
  std::size_t c = 0;
  for (std::size_t $i = 0; $i + 2 <= $v.size(); ++$i) {
    if ($v.substr($i, 2) == "ab") ++c;
  }
  return c;
}""",
           """std::size_t $fn(const std::string& $v) {
  std::size_t c = 0;
  for (std::size_t $i = 0; $i + 2 <= $v.size(); ++$i)
    c += ($v[$i] == 'a' && $v[$i + 1] == 'b');
  return c;
}""", types=("char",), includes=("cstddef", "string"), loops=False),
    # 15 Efficient Library and API Utilization
    Family("bubble-sort", 15,
           "A hand-written quadratic sort; std::sort is O(n log n).",
           """unsigned long long $fn(const std::vector<$T>& $v) {
  std::vector<$T> a = $v;
  for (std::size_t $i = 0; $i < a.size(); ++$i)
    for (std::size_t j = 0; j + 1 < a.size() - $i; ++j)
      if (a[j + 1] < a[j]) { $T t = a[j]; a[j] = a[j + 1]; a[j + 1] = t; }
  unsigned long long s = 0;
  for (std::size_t k = 0; k < a.size(); ++k) s += (unsigned long long)a[k] * (k + 1);
  return s;
}""",
           """unsigned long long $fn(const std::vector<$T>& $v) {
  std::vector<$T> a = $v;
  std::sort(a.begin(), a.end());
  unsigned long long s = 0;
  for (std::size_t k = 0; k < a.size(); ++k) s += (unsigned long long)a[k] * (k + 1);
  return s;
}""", fast_includes=("algorithm",), loops=False),
    Family("count-in-sorted", 15,
           "Occurrences are counted by scanning a sorted copy; equal_range finds them in log n.",
           """std::size_t $fn(const std::vector<$T>& $v, const std::vector<$T>& $w) {
  std::vector<$T> a = $v;
  std::sort(a.begin(), a.end());
  std::size_t c = 0;
  for (std::size_t $i = 0; $i < $w.size(); ++$i)
    for (std::size_t j = 0; j < a.size(); ++j) c += (a[j] == $w[$i]);
  return c;
}""",
           """std::size_t $fn(const std::vector<$T>& $v, const std::vector<$T>& $w) {
  std::vector<$T> a = $v;
  std::sort(a.begin(), a.end());
  std::size_t c = 0;
  for (std::size_t $i = 0; $i < $w.size(); ++$i) {
    auto r = std::equal_range(a.begin(), a.end(), $w[$i]);
    c += (std::size_t)(r.second - r.first);
  }
  return c;
}""", includes=("cstddef", "vector", "algorithm"), loops=False),
)
