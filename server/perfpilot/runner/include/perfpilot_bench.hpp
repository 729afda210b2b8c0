// PerfPilot bench spec API.
//
// A bench spec tells the PerfPilot runner how to build inputs for a function, how to call it and
// which outputs must agree between the original and the rewritten version. The runner compiles
// the spec once into a driver that loads both versions and calls them alternately.
//
//   #include <perfpilot_bench.hpp>
//   #include <vector>
//
//   using Fn = long (*)(const std::vector<int>&);     // the function's type
//
//   struct Bench {
//     std::vector<int> v;
//     long result = 0;
//     void setup(std::size_t n, std::mt19937_64& rng) {       // inputs of size n (not timed)
//       v.resize(n);
//       for (auto& x : v) x = static_cast<int>(rng() % 1000);
//     }
//     void call(Fn f) { result = f(v); }                      // the only timed part
//     void record(perfpilot::Recorder& r) const { r.add("result", result); }  // compared A vs B
//   };
//   PERFPILOT_BENCH(Bench, Fn)
//
// Optional members of the bench type:
//   void reset();                                   restore inputs the call mutates (not timed)
//   static constexpr std::size_t max_size = N;      largest size the runner may choose
//   static constexpr std::size_t min_size = N;      smallest size to start calibration from
//   static std::vector<std::size_t> edge_sizes();   sizes validated before timing
//
// See docs/bench-spec.md for the full description.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace perfpilot {

// One recorded value. Container elements keep up to three indices of their position.
struct Entry {
  char kind = 'i';  // i: signed, u: unsigned, f: floating, s: string, n: length, e: exception
  int label = 0;
  int depth = 0;
  long long index[3] = {0, 0, 0};
  long long i = 0;
  unsigned long long u = 0;
  double f = 0.0;
  double tol = 0.0;
  std::string s;
};

// Collects the outputs of one call; the runner compares the original's record with the
// candidate's. Floating-point values compare with a relative tolerance (1e-9 for double,
// 1e-5 for float unless given).
class Recorder {
 public:
  template <class T>
  void add(const T& value) { add("value", value); }

  template <class T>
  void add(const char* label, const T& value, double tol = -1.0) {
    cur_label_ = intern(label);
    depth_ = 0;
    put(value, tol);
  }

  // Record that the call threw; compared as "threw" vs "returned".
  void exception(const char* what) {
    Entry e;
    e.kind = 'e';
    e.label = intern("exception");
    e.s = what ? what : "";
    entries_.push_back(std::move(e));
  }

  const std::vector<Entry>& entries() const { return entries_; }
  const std::vector<std::string>& labels() const { return labels_; }
  void clear() { entries_.clear(); labels_.clear(); }

 private:
  template <class T>
  void put(const T& v, double tol) {
    using D = std::decay_t<T>;
    if constexpr (std::is_same_v<D, bool>) {
      push('u', static_cast<unsigned long long>(v), 0, 0.0, 0.0);
    } else if constexpr (std::is_integral_v<D> || std::is_enum_v<D>) {
      if constexpr (std::is_signed_v<D> || std::is_enum_v<D>) {
        push('i', 0, static_cast<long long>(v), 0.0, 0.0);
      } else {
        push('u', static_cast<unsigned long long>(v), 0, 0.0, 0.0);
      }
    } else if constexpr (std::is_floating_point_v<D>) {
      double t = tol >= 0.0 ? tol : (std::is_same_v<D, float> ? 1e-5 : 1e-9);
      push('f', 0, 0, static_cast<double>(v), t);
    } else if constexpr (std::is_same_v<D, std::string>) {
      Entry e = base('s');
      e.s = v;
      entries_.push_back(std::move(e));
    } else if constexpr (std::is_same_v<D, const char*> || std::is_same_v<D, char*>) {
      Entry e = base('s');
      e.s = v ? v : "(null)";
      entries_.push_back(std::move(e));
    } else if constexpr (is_pair<D>::value) {
      nested(0, v.first, tol);
      nested(1, v.second, tol);
    } else if constexpr (is_sequence<D>::value) {
      push('n', static_cast<unsigned long long>(v.size()), 0, 0.0, 0.0);
      using E = typename D::value_type;
      long long k = 0;
      for (const auto& x : v) {
        if constexpr (std::is_same_v<E, bool>) {
          nested(k++, static_cast<bool>(x), tol);
        } else {
          nested(k++, x, tol);
        }
      }
    } else {
      static_assert(sizeof(D) == 0,
                    "perfpilot::Recorder records arithmetic values, std::string, std::vector, "
                    "std::array and std::pair; record the fields of other types one by one");
    }
  }

  template <class T>
  void nested(long long k, const T& v, double tol) {
    if (depth_ < 3) index_[depth_] = k;
    ++depth_;
    put(v, tol);
    --depth_;
  }

  Entry base(char kind) const {
    Entry e;
    e.kind = kind;
    e.label = cur_label_;
    e.depth = depth_;
    for (int d = 0; d < 3; ++d) e.index[d] = index_[d];
    return e;
  }

  void push(char kind, unsigned long long u, long long i, double f, double tol) {
    Entry e = base(kind);
    e.u = u;
    e.i = i;
    e.f = f;
    e.tol = tol;
    entries_.push_back(std::move(e));
  }

  int intern(const char* label) {
    std::string s = label ? label : "";
    for (std::size_t k = 0; k < labels_.size(); ++k)
      if (labels_[k] == s) return static_cast<int>(k);
    labels_.push_back(s);
    return static_cast<int>(labels_.size() - 1);
  }

  template <class T> struct is_pair : std::false_type {};
  template <class A, class B> struct is_pair<std::pair<A, B>> : std::true_type {};
  template <class T> struct is_sequence : std::false_type {};
  template <class T, class Al> struct is_sequence<std::vector<T, Al>> : std::true_type {};
  template <class T, std::size_t N> struct is_sequence<std::array<T, N>> : std::true_type {};

  std::vector<Entry> entries_;
  std::vector<std::string> labels_;
  int cur_label_ = 0;
  int depth_ = 0;
  long long index_[3] = {0, 0, 0};
};

// Helpers to fill inputs with seeded pseudo-random data of a given size.
namespace gen {

// Value domains ("profiles") the runner validates with, each over several seeds. A function is
// only as well checked as the values it sees: lower-case-only strings let `return 0` pass for a
// count of capitals, non-negative numbers hide sign bugs. The runner sets the profile before
// setup(); hand-written specs may ignore it.
enum Profile : int {
  kNatural = 0,  // integers in [0, n) (valid indices, duplicates), floats in [0, 1), printable text
  kSigned = 1,   // integers in [-n, n], floats in [-1, 1], text with every character class
  kSmall = 2,    // integers in [-2, 2]: zeros, ties and duplicates everywhere
  kSorted = 3,   // as kSigned, sequences sorted ascending
  kWide = 4,     // integers across half the type's bits (+-65536 for int), floats to +-1e6
  kExtreme = 5,  // the type's limits mixed with small values; huge and tiny floats; any byte
  kSpecial = 6,  // as kSigned, floats include NaN, infinities and -0.0
  kProfiles = 7
};

inline int& profile() {
  static int current = kNatural;
  return current;
}

inline const char* profile_name(int p) {
  static const char* const names[] = {"natural", "signed", "small", "sorted", "wide",
                                      "extreme", "special"};
  return p >= 0 && p < kProfiles ? names[p] : "natural";
}

inline std::size_t side(std::size_t n) {
  std::size_t m = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(n))));
  return m;
}

template <class T> struct is_vector : std::false_type {};
template <class T, class Al> struct is_vector<std::vector<T, Al>> : std::true_type {};

template <class T>
T integer(std::size_t n, std::mt19937_64& rng) {
  using L = std::numeric_limits<T>;
  const long long span = static_cast<long long>(n > 1 ? (n < (1ULL << 40) ? n : (1ULL << 40)) : 2);
  switch (profile()) {
    case kSmall:
      if constexpr (std::is_signed_v<T>) return static_cast<T>(static_cast<long long>(rng() % 5) - 2);
      else return static_cast<T>(rng() % 4);
    case kExtreme: {
      const T picks[] = {L::min(), L::max(), static_cast<T>(L::min() + 1),
                         static_cast<T>(L::max() - 1), static_cast<T>(0), static_cast<T>(1),
                         static_cast<T>(L::max() / 2)};
      unsigned r = static_cast<unsigned>(rng() % 10);
      if (r < 7) return picks[r];
      return static_cast<T>(rng());
    }
    case kWide: {
      constexpr int half = std::numeric_limits<T>::digits / 2;
      const unsigned long long w = 1ULL << (half < 62 ? half : 62);
      if constexpr (std::is_signed_v<T>)
        return static_cast<T>(static_cast<long long>(rng() % (2 * w + 1)) -
                              static_cast<long long>(w));
      else
        return static_cast<T>(rng() % (w + 1));
    }
    case kSigned: case kSorted: case kSpecial:
      if constexpr (std::is_signed_v<T>) {
        long long lo = static_cast<long long>(L::min()), hi = static_cast<long long>(L::max());
        long long v = static_cast<long long>(rng() % static_cast<unsigned long long>(2 * span + 1)) - span;
        return static_cast<T>(v < lo ? lo : (v > hi ? hi : v));
      } else {
        return static_cast<T>(rng() % static_cast<unsigned long long>(span + 1));
      }
    default:
      return static_cast<T>(rng() % static_cast<unsigned long long>(span));
  }
}

template <class T>
T floating(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0), sym(-1.0, 1.0);
  switch (profile()) {
    case kSmall: {
      const double picks[] = {-1.0, -0.5, 0.0, 0.0, 0.5, 1.0, 2.0};
      return static_cast<T>(picks[rng() % 7]);
    }
    case kExtreme: {
      using L = std::numeric_limits<T>;
      const T picks[] = {static_cast<T>(L::max() / 4), static_cast<T>(-L::max() / 4),
                         L::min(), L::denorm_min(), static_cast<T>(1e6), static_cast<T>(-1e-6)};
      unsigned r = static_cast<unsigned>(rng() % 8);
      if (r < 6) return picks[r];
      return static_cast<T>(sym(rng) * 1e3);
    }
    case kSpecial: {
      using L = std::numeric_limits<T>;
      unsigned r = static_cast<unsigned>(rng() % 8);
      if (r == 0) return L::quiet_NaN();
      if (r == 1) return L::infinity();
      if (r == 2) return -L::infinity();
      if (r == 3) return static_cast<T>(-0.0);
      return static_cast<T>(sym(rng));
    }
    case kWide:
      return static_cast<T>(sym(rng) * 1e6);
    case kSigned: case kSorted:
      return static_cast<T>(sym(rng));
    default:
      return static_cast<T>(unit(rng));
  }
}

// Text: every printable class (upper, lower, digits, space, punctuation) in every profile; the
// small profile draws from a few characters of each class so runs and repeats occur; the extreme
// profile adds control characters, NUL (which ends a C string early) and bytes above 127.
inline char character(std::mt19937_64& rng) {
  switch (profile()) {
    case kSmall: {
      static const char picks[] = "aAzZ09 _.,\n";
      return picks[rng() % (sizeof picks - 1)];
    }
    case kExtreme: {
      unsigned r = static_cast<unsigned>(rng() % 4);
      if (r == 0) return static_cast<char>(rng() % 32);
      if (r == 1) return static_cast<char>(128 + rng() % 128);
      return static_cast<char>(32 + rng() % 95);
    }
    default: {
      // Letters more often than other printables, upper and lower case alike.
      unsigned r = static_cast<unsigned>(rng() % 8);
      if (r < 3) return static_cast<char>('a' + rng() % 26);
      if (r < 6) return static_cast<char>('A' + rng() % 26);
      return static_cast<char>(32 + rng() % 95);
    }
  }
}

template <class T>
void sort_if_sorted_profile(T& x) {
  if (profile() != kSorted) return;
  if constexpr (is_vector<T>::value) {
    using E = typename T::value_type;
    if constexpr (std::is_arithmetic_v<E> || std::is_same_v<E, std::string>) {
      if constexpr (!std::is_same_v<E, bool>) std::sort(x.begin(), x.end());
    }
  } else if constexpr (std::is_same_v<T, std::string>) {
    std::sort(x.begin(), x.end());
  }
}

// Fill x with values of the current profile for size n. A vector of vectors (or of strings) is
// about sqrt(n) by sqrt(n), so the total element count stays near n.
template <class T>
void fill(T& x, std::size_t n, std::mt19937_64& rng) {
  if constexpr (std::is_same_v<T, bool>) {
    x = (rng() & 1u) != 0;
  } else if constexpr (std::is_same_v<T, char>) {
    x = character(rng);
  } else if constexpr (std::is_same_v<T, signed char> || std::is_same_v<T, unsigned char>) {
    x = static_cast<T>(profile() == kNatural ? character(rng) : static_cast<char>(rng()));
  } else if constexpr (std::is_integral_v<T>) {
    x = integer<T>(n, rng);
  } else if constexpr (std::is_floating_point_v<T>) {
    x = floating<T>(rng);
  } else if constexpr (std::is_same_v<T, std::string>) {
    x.resize(n);
    for (auto& c : x) c = character(rng);
    sort_if_sorted_profile(x);
  } else if constexpr (is_vector<T>::value) {
    using E = typename T::value_type;
    if constexpr (is_vector<E>::value || std::is_same_v<E, std::string>) {
      std::size_t m = side(n);
      x.assign(m, E{});
      for (auto& e : x) fill(e, m, rng);
    } else {
      x.resize(n);
      for (std::size_t k = 0; k < n; ++k) {  // index loop: std::vector<bool> has proxies
        E v{};
        fill(v, n, rng);
        x[k] = v;
      }
    }
    sort_if_sorted_profile(x);
  } else {
    static_assert(sizeof(T) == 0, "perfpilot::gen::fill: unsupported type");
  }
}

// A scalar argument that is not a size: integers in [0, 100] (natural), [-100, 100] (signed,
// sorted, special), [-2, 2] (small), half the type's bits (wide) or at the type's limits
// (extreme); floats as for elements.
template <class T>
void scalar(T& x, std::mt19937_64& rng) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) > 1) {
    if (profile() == kExtreme || profile() == kSmall || profile() == kWide) {
      x = integer<T>(100, rng);
    } else if (profile() == kNatural || !std::is_signed_v<T>) {
      x = static_cast<T>(rng() % 101);
    } else {
      x = static_cast<T>(static_cast<long long>(rng() % 201) - 100);
    }
  } else {
    fill(x, 100, rng);
  }
}

}  // namespace gen

namespace detail {

// What the driver needs from a bench, independent of the function's type.
struct CaseBase {
  virtual ~CaseBase() = default;
  virtual void setup(std::size_t n, std::mt19937_64& rng) = 0;
  virtual void reset() = 0;
  virtual void call(void* fn) = 0;
  virtual void record(Recorder& r) = 0;
};

template <class B, class = void> struct has_reset : std::false_type {};
template <class B>
struct has_reset<B, std::void_t<decltype(std::declval<B&>().reset())>> : std::true_type {};
template <class B, class = void> struct has_max_size : std::false_type {};
template <class B>
struct has_max_size<B, std::void_t<decltype(B::max_size)>> : std::true_type {};
template <class B, class = void> struct has_min_size : std::false_type {};
template <class B>
struct has_min_size<B, std::void_t<decltype(B::min_size)>> : std::true_type {};
template <class B, class = void> struct has_edges : std::false_type {};
template <class B>
struct has_edges<B, std::void_t<decltype(B::edge_sizes())>> : std::true_type {};

template <class B, class Fn>
struct Adapter final : CaseBase {
  B bench;
  void setup(std::size_t n, std::mt19937_64& rng) override {
    bench = B{};
    bench.setup(n, rng);
  }
  void reset() override {
    if constexpr (has_reset<B>::value) bench.reset();
  }
  void call(void* fn) override { bench.call(reinterpret_cast<Fn>(fn)); }
  void record(Recorder& r) override { bench.record(r); }
};

struct Info {
  CaseBase* (*make)();
  std::size_t max_size;
  std::size_t min_size;
  std::vector<std::size_t> edges;
};

template <class B, class Fn>
Info info_for() {
  Info info;
  info.make = []() -> CaseBase* { return new Adapter<B, Fn>(); };
  info.max_size = 0;
  info.min_size = 0;
  if constexpr (has_max_size<B>::value) info.max_size = static_cast<std::size_t>(B::max_size);
  if constexpr (has_min_size<B>::value) info.min_size = static_cast<std::size_t>(B::min_size);
  if constexpr (has_edges<B>::value) info.edges = B::edge_sizes();
  return info;
}

}  // namespace detail
}  // namespace perfpilot

// Register the bench type and the function pointer type it calls (once per spec file).
#define PERFPILOT_BENCH(BenchType, FnType)                      \
  namespace perfpilot {                                         \
  namespace detail {                                            \
  inline Info registered() { return info_for<BenchType, FnType>(); } \
  }                                                             \
  }
