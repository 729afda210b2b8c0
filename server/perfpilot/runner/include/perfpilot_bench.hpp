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
//   void overwrite(const Bench& other);             copy other's inputs into this one's objects
//                                                   (the memory probe; default: assignment)
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
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <new>
#include <tuple>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace perfpilot {

// One recorded value. Container elements keep up to three indices of their position.
// 40 bytes: a large output is recorded value by value, and the validation past the timed size
// holds several records of millions of values at once within the runs' memory limit.
struct Entry {
  char kind = 'i';  // i: signed, u: unsigned, f: floating, s: string, n: length, e: exception
  std::uint8_t depth = 0;
  std::uint16_t label = 0;
  std::uint32_t text = 0;  // s and e: the string, in its Recorder's text()
  std::int32_t index[3] = {0, 0, 0};
  union {  // the one value the kind says
    long long i = 0;
    unsigned long long u;
    double f;
  };
  double tol = 0.0;
};
static_assert(sizeof(Entry) <= 40, "a recorded value must stay small (see Entry)");

// ---- User types and more containers (traits used by Recorder and gen::fill_any) -----------
// The generated harness declares, next to each type of the user's unit, the hooks
//   T perfpilot_make(perfpilot::ext::type_tag<T>, std::size_t n, std::mt19937_64& rng);
//   void perfpilot_record(perfpilot::Recorder& r, const T& value);   // r.field(k, member)
// found by argument-dependent lookup; a bench spec may declare them for its own types too.
class Recorder;
namespace ext {

template <class T> struct type_tag { using type = T; };

template <class T, class = void> struct has_make : std::false_type {};
template <class T>
struct has_make<T, std::void_t<decltype(perfpilot_make(type_tag<T>{}, std::size_t{},
                                                       std::declval<std::mt19937_64&>()))>>
    : std::true_type {};
template <class T, class = void> struct has_record : std::false_type {};
template <class T>
struct has_record<T, std::void_t<decltype(perfpilot_record(std::declval<Recorder&>(),
                                                           std::declval<const T&>()))>>
    : std::true_type {};

template <class T, class = void> struct has_key : std::false_type {};
template <class T> struct has_key<T, std::void_t<typename T::key_type>> : std::true_type {};
template <class T, class = void> struct has_mapped : std::false_type {};
template <class T>
struct has_mapped<T, std::void_t<typename T::mapped_type>> : std::true_type {};
template <class T, class = void> struct has_hasher : std::false_type {};
template <class T> struct has_hasher<T, std::void_t<typename T::hasher>> : std::true_type {};
template <class T, class = void> struct has_traits : std::false_type {};
template <class T>
struct has_traits<T, std::void_t<typename T::traits_type>> : std::true_type {};
template <class T> struct is_tuple : std::false_type {};
template <class... A> struct is_tuple<std::tuple<A...>> : std::true_type {};
template <class T> struct is_pair : std::false_type {};
template <class A, class B> struct is_pair<std::pair<A, B>> : std::true_type {};
template <class T> struct is_std_array : std::false_type {};
template <class T, std::size_t N> struct is_std_array<std::array<T, N>> : std::true_type {};
// A sequence container (vector, deque, list, ...), told by its members so that this header
// needs none of their headers: an allocator, push_back, and no character traits (strings).
template <class T, class = void> struct is_list_like : std::false_type {};
template <class T>
struct is_list_like<T, std::void_t<typename T::allocator_type, typename T::value_type,
                                   decltype(std::declval<T&>().push_back(
                                       std::declval<const typename T::value_type&>()))>>
    : std::bool_constant<!has_traits<T>::value> {};

// How the Recorder records D when its own branches do not: 0 not at all, 1 tuple, 2 the
// type's hook, 3 built-in array, 4 unordered container (in a canonical order), 5 in order.
template <class D>
constexpr int record_kind() {
  if constexpr (is_tuple<D>::value) return 1;
  else if constexpr (has_record<D>::value) return 2;
  else if constexpr (std::is_array_v<D>) return 3;
  else if constexpr (has_key<D>::value && has_hasher<D>::value) return 4;
  else if constexpr (has_key<D>::value || is_list_like<D>::value) return 5;
  else return 0;
}

}  // namespace ext
// ---- end of user types traits ----------------------------------------------------------------

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
    e.label = static_cast<std::uint16_t>(intern("exception"));
    e.text = keep(what ? what : "");
    entries_.push_back(e);
  }

  const std::vector<Entry>& entries() const { return entries_; }
  const std::vector<std::string>& labels() const { return labels_; }
  // The string a string or exception entry holds.
  const std::string& text(const Entry& e) const { return texts_[e.text]; }
  void clear() { entries_.clear(); labels_.clear(); texts_.clear(); }

  // Orders records by their values (strings read through each one's own text()).
  static bool less(const Recorder& ra, const Recorder& rb) {
    const std::vector<Entry>& a = ra.entries_;
    const std::vector<Entry>& b = rb.entries_;
    std::size_t m = std::min(a.size(), b.size());
    for (std::size_t k = 0; k < m; ++k) {
      const Entry& x = a[k];
      const Entry& y = b[k];
      if (x.kind != y.kind) return x.kind < y.kind;
      switch (x.kind) {
        case 'i': if (x.i != y.i) return x.i < y.i; break;
        case 'f': if (x.f != y.f) return x.f < y.f; break;
        case 's': case 'e':
          if (ra.text(x) != rb.text(y)) return ra.text(x) < rb.text(y);
          break;
        default: if (x.u != y.u) return x.u < y.u;
      }
    }
    return a.size() < b.size();
  }

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
      e.text = keep(v);
      entries_.push_back(e);
    } else if constexpr (std::is_same_v<D, const char*> || std::is_same_v<D, char*>) {
      Entry e = base('s');
      e.text = keep(v ? v : "(null)");
      entries_.push_back(e);
    } else if constexpr (is_pair<D>::value) {
      nested(0, v.first, tol);
      nested(1, v.second, tol);
    } else if constexpr (is_sequence<D>::value) {
      room(v.size() + 1);
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
    } else if constexpr (ext::record_kind<D>() != 0) {
      put_ext(v, tol);
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
    e.label = static_cast<std::uint16_t>(cur_label_);
    e.depth = static_cast<std::uint8_t>(std::min(depth_, 255));
    for (int d = 0; d < 3; ++d) e.index[d] = static_cast<std::int32_t>(index_[d]);
    return e;
  }

  void push(char kind, unsigned long long u, long long i, double f, double tol) {
    Entry e = base(kind);
    if (kind == 'f') e.f = f;
    else if (kind == 'i') e.i = i;
    else e.u = u;
    e.tol = tol;
    entries_.push_back(e);
  }

  std::uint32_t keep(std::string value) {
    texts_.push_back(std::move(value));
    return static_cast<std::uint32_t>(texts_.size() - 1);
  }

  // Room for `more` entries, growing geometrically: a large output is recorded element by
  // element, and moving every entry at each growth step doubled the time that takes.
  void room(std::size_t more) {
    const std::size_t need = entries_.size() + more;
    if (need > entries_.capacity()) entries_.reserve(std::max(need, 2 * entries_.capacity()));
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


  // ---- User types and more containers (see ext:: above) --------------------------------------
 public:
  // Record member k of a user type; called from a perfpilot_record hook.
  template <class T>
  void field(long long k, const T& value) { nested(k, value, hook_tol_); }

 private:
  template <class D>
  void put_ext(const D& v, double tol) {
    constexpr int kind = ext::record_kind<D>();
    if constexpr (kind == 1) {
      put_tuple(v, tol, std::make_index_sequence<std::tuple_size_v<D>>{});
    } else if constexpr (kind == 2) {
      double saved = hook_tol_;
      hook_tol_ = tol;
      perfpilot_record(*this, v);
      hook_tol_ = saved;
    } else if constexpr (kind == 3) {
      room(std::extent_v<D> + 1);
      push('n', static_cast<unsigned long long>(std::extent_v<D>), 0, 0.0, 0.0);
      for (std::size_t k = 0; k < std::extent_v<D>; ++k)
        nested(static_cast<long long>(k), v[k], tol);
    } else if constexpr (kind == 4) {
      // Iteration order of an unordered container is not part of its value: record the
      // elements sorted by their own records.
      room(v.size() + 1);
      push('n', static_cast<unsigned long long>(v.size()), 0, 0.0, 0.0);
      std::vector<std::pair<Recorder, const typename D::value_type*>> items;
      for (const auto& x : v) {
        Recorder one;
        one.add("k", x);
        items.emplace_back(std::move(one), &x);
      }
      std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) {
        return less(a.first, b.first);
      });
      long long k = 0;
      for (const auto& item : items) nested(k++, *item.second, tol);
    } else {
      const auto count = static_cast<std::size_t>(std::distance(v.begin(), v.end()));
      room(count + 1);
      push('n', static_cast<unsigned long long>(count), 0, 0.0, 0.0);
      long long k = 0;
      for (const auto& x : v) nested(k++, x, tol);
    }
  }

  template <class D, std::size_t... I>
  void put_tuple(const D& v, double tol, std::index_sequence<I...>) {
    (nested(static_cast<long long>(I), std::get<I>(v), tol), ...);
  }

  double hook_tol_ = -1.0;
  // ---- end of user types support -------------------------------------------------------------

  std::vector<Entry> entries_;
  std::vector<std::string> labels_;
  std::vector<std::string> texts_;
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
  kAliased = 7,  // as kSigned; a generated harness passes overlapping input and output buffers
  kConstants = 8,  // the code's own constants, values around them and above them, mixed with
                   // small and signed values (see constants() below)
  kProfiles = 9
};

inline int& profile() {
  static int current = kNatural;
  return current;
}

inline const char* profile_name(int p) {
  static const char* const names[] = {"natural", "signed", "small", "sorted", "wide",
                                      "extreme", "special", "aliased", "constants"};
  return p >= 0 && p < kProfiles ? names[p] : "natural";
}

// The numbers the code under test is written with (its literals and named constants), which
// the runner hands over (the driver's consts= argument). A value no profile produces can be
// the one where a rewrite goes wrong: a modulus no sum reaches, a packing base `a * 100000 + b`
// that two keys collide at only when b >= 100000. The constants profile draws from them.
struct Pool {
  std::vector<long long> ints;
  std::vector<double> reals;
};

inline Pool& constants() {
  static Pool pool;
  return pool;
}

// "1000000007,100000,0.5": integers and reals (a real is written with '.', 'e' or "inf").
inline void set_constants(const std::string& text) {
  Pool& pool = constants();
  pool.ints.clear();
  pool.reals.clear();
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(start, end - start);
    start = end + 1;
    if (item.empty()) continue;
    const bool real = item.find_first_of(".eEin") != std::string::npos &&
                      item.find_first_of("xX") == std::string::npos;
    if (real) {
      pool.reals.push_back(std::strtod(item.c_str(), nullptr));
    } else {
      long long v = std::strtoll(item.c_str(), nullptr, 10);
      pool.ints.push_back(v);
      pool.reals.push_back(static_cast<double>(v));
    }
  }
}

// A value of T near a constant k of the pool: k, k - 1, k + 1, -k, or one in [k, 2k) (a
// packing base needs values at or above it); false when the pool is empty or the value does
// not fit T.
template <class T>
bool near_constant(std::mt19937_64& rng, T& out) {
  const auto& ints = constants().ints;
  if (ints.empty()) return false;
  using L = std::numeric_limits<T>;
  const __int128 k = ints[rng() % ints.size()];
  const __int128 mag = k < 0 ? -k : k;
  __int128 v = k;
  switch (rng() % 6) {
    case 0: v = k - 1; break;
    case 1: v = k + 1; break;
    case 2: v = -k; break;
    case 3: v = k + static_cast<__int128>(rng() % static_cast<unsigned long long>(mag > 0 ? mag : 1)); break;
    default: break;
  }
  if (v < static_cast<__int128>(L::min()) || v > static_cast<__int128>(L::max())) {
    if (k < static_cast<__int128>(L::min()) || k > static_cast<__int128>(L::max())) return false;
    v = k;
  }
  out = static_cast<T>(v);
  return true;
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
    case kConstants: {
      // Half the values come from the code's constants, the rest are small (so that a value
      // near a constant meets zeros, ones and neighbours) or signed.
      const unsigned r = static_cast<unsigned>(rng() % 8);
      T near{};
      if (r < 4 && near_constant(rng, near)) return near;
      if (r < 6) {
        if constexpr (std::is_signed_v<T>) return static_cast<T>(static_cast<long long>(rng() % 5) - 2);
        else return static_cast<T>(rng() % 4);
      }
      if constexpr (std::is_signed_v<T>) {
        long long lo = static_cast<long long>(L::min()), hi = static_cast<long long>(L::max());
        long long v = static_cast<long long>(rng() % static_cast<unsigned long long>(2 * span + 1)) - span;
        return static_cast<T>(v < lo ? lo : (v > hi ? hi : v));
      } else {
        return static_cast<T>(rng() % static_cast<unsigned long long>(span + 1));
      }
    }
    case kSigned: case kSorted: case kSpecial: case kAliased:
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
      // Large, tiny and denormal magnitudes, but not near the type's maximum: there a sum's
      // rounding depends on its order so much that any reordering (an OpenMP reduction)
      // changes the result beyond every tolerance, and that is not a bug of the rewrite.
      const T picks[] = {static_cast<T>(1e6), static_cast<T>(-1e6), L::min(), L::denorm_min(),
                         static_cast<T>(-0.0), static_cast<T>(-1e-6)};
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
    case kConstants: {
      const auto& reals = constants().reals;
      const unsigned r = static_cast<unsigned>(rng() % 8);
      if (r < 4 && !reals.empty()) {
        const double k = reals[rng() % reals.size()];
        switch (rng() % 5) {
          case 0: return static_cast<T>(std::nextafter(k, -HUGE_VAL));
          case 1: return static_cast<T>(std::nextafter(k, HUGE_VAL));
          case 2: return static_cast<T>(-k);
          case 3: return static_cast<T>(k * (1.0 + unit(rng)));
          default: return static_cast<T>(k);
        }
      }
      return static_cast<T>(sym(rng));
    }
    case kSigned: case kSorted: case kAliased:
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

// The length of a string held in a container of size n: about sqrt(n), and in the small profile
// words of up to two characters, so the same one comes again. Long random strings never
// repeat, and code that counts or looks up words would only be checked on its first-occurrence
// path.
inline std::size_t element_string_length(std::size_t n, std::mt19937_64& rng) {
  return profile() == kSmall ? static_cast<std::size_t>(rng() % 3) : side(n);
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
      for (auto& e : x) {
        if constexpr (std::is_same_v<E, std::string>) fill(e, element_string_length(n, rng), rng);
        else fill(e, m, rng);
      }
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
// sorted, special), [-2, 2] (small), half the type's bits (wide), at the type's limits
// (extreme) or near the code's constants (constants); floats as for elements.
template <class T>
void scalar(T& x, std::mt19937_64& rng) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) > 1) {
    if (profile() == kExtreme || profile() == kSmall || profile() == kWide ||
        profile() == kConstants) {
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

}  // namespace perfpilot

// ---- User types and more containers: generation ----------------------------------------------
// gen::fill_any builds everything gen::fill does (and delegates those types to it, so their
// value domains stay one definition) plus enums, std::pair, std::tuple, std::array, built-in
// arrays, std::deque, std::list, sets and maps, and user types through their perfpilot_make
// hook. Containers of scalars hold n elements; containers of containers or strings about
// sqrt(n), each about sqrt(n) long; elements of user types get sqrt(n) for their own sizes.
namespace perfpilot {
namespace gen {

template <class T> struct is_basic : std::bool_constant<std::is_arithmetic_v<T> ||
                                                       std::is_same_v<T, std::string>> {};
template <class T, class A>
struct is_basic<std::vector<T, A>> : std::bool_constant<is_basic<T>::value> {};

template <class T> void fill_any(T& x, std::size_t n, std::mt19937_64& rng);

template <class T>
T make_any(std::size_t n, std::mt19937_64& rng) {
  if constexpr (ext::has_make<T>::value) {
    return perfpilot_make(ext::type_tag<T>{}, n, rng);
  } else {
    T x{};
    fill_any(x, n, rng);
    return x;
  }
}

// Elements that are containers or strings make the container about sqrt(n) long.
template <class E>
constexpr bool nests() {
  return std::is_same_v<E, std::string> || ext::has_key<E>::value ||
         ext::is_list_like<E>::value;
}
template <class E>
std::size_t count_for(std::size_t n) { return nests<E>() ? side(n) : n; }
template <class E>
std::size_t element_size(std::size_t n, std::mt19937_64& rng) {
  if constexpr (std::is_same_v<E, std::string>) return element_string_length(n, rng);
  return (std::is_arithmetic_v<E> || std::is_enum_v<E>) ? n : side(n);
}

template <class T>
void fill_any(T& x, std::size_t n, std::mt19937_64& rng) {
  if constexpr (ext::has_make<T>::value) {
    x = perfpilot_make(ext::type_tag<T>{}, n, rng);
  } else if constexpr (is_basic<T>::value) {
    fill(x, n, rng);
  } else if constexpr (std::is_enum_v<T>) {
    x = static_cast<T>(rng() % 4);
  } else if constexpr (std::is_array_v<T>) {
    using E = std::remove_extent_t<T>;
    for (auto& e : x) fill_any(e, element_size<E>(n, rng), rng);
  } else if constexpr (ext::is_std_array<T>::value) {
    using E = typename T::value_type;
    for (auto& e : x) fill_any(e, element_size<E>(n, rng), rng);
  } else if constexpr (ext::is_pair<T>::value) {
    x.first = make_any<std::remove_const_t<typename T::first_type>>(n, rng);
    x.second = make_any<typename T::second_type>(n, rng);
  } else if constexpr (ext::is_tuple<T>::value) {
    std::apply([&](auto&... e) { (fill_any(e, n, rng), ...); }, x);
  } else if constexpr (ext::is_list_like<T>::value) {
    using E = typename T::value_type;
    x.clear();
    std::size_t count = count_for<E>(n);
    for (std::size_t k = 0; k < count; ++k) {
      x.push_back(make_any<E>(element_size<E>(n, rng), rng));
    }
  } else if constexpr (ext::has_mapped<T>::value) {
    using K = typename T::key_type;
    using V = typename T::mapped_type;
    x.clear();
    std::size_t count = count_for<V>(n);
    for (std::size_t k = 0; k < count; ++k) {
      K key = make_any<K>(element_size<K>(n, rng), rng);
      x.emplace(std::move(key), make_any<V>(element_size<V>(n, rng), rng));
    }
  } else if constexpr (ext::has_key<T>::value) {
    using K = typename T::key_type;
    x.clear();
    std::size_t count = count_for<K>(n);
    for (std::size_t k = 0; k < count; ++k) {
      x.insert(make_any<K>(element_size<K>(n, rng), rng));
    }
  } else {
    static_assert(sizeof(T) == 0, "perfpilot::gen::fill_any: unsupported type");
  }
}

// After a constructor has set an object up, the floating-point elements of its containers
// (and of the user types they hold) get fresh values, sizes unchanged: a constructor usually
// only sizes its storage, and zeros let wrong arithmetic pass. Integers are left alone, since
// they are often indices or links that the constructor made consistent.
template <class T, class = void> struct has_refill : std::false_type {};
template <class T>
struct has_refill<T, std::void_t<decltype(perfpilot_refill(std::declval<T&>(), std::size_t{},
                                                           std::declval<std::mt19937_64&>()))>>
    : std::true_type {};

template <class T>
void refill_floats(T& x, std::size_t n, std::mt19937_64& rng, bool inside = false) {
  if constexpr (std::is_floating_point_v<T>) {
    if (inside) fill(x, n, rng);
  } else if constexpr (has_refill<T>::value) {
    if (inside) perfpilot_refill(x, n, rng);
  } else if constexpr (ext::is_list_like<T>::value || ext::is_std_array<T>::value) {
    using E = typename T::value_type;
    if constexpr (!std::is_same_v<E, bool>) {
      for (auto& e : x) refill_floats(e, n, rng, true);
    }
  } else if constexpr (std::is_array_v<T>) {
    for (auto& e : x) refill_floats(e, n, rng, true);
  }
}

}  // namespace gen
}  // namespace perfpilot
// ---- end of user types generation --------------------------------------------------------------

// ---- Objects built through their public API ------------------------------------------------
// A class whose state only its own methods set (private fields, a public add()) is built the way
// a caller builds it: constructed, then about n of its public mutators called with generated
// arguments. The object is the unit's own: the generated entry exports helpers (allocate,
// free, destroy, construct, each chosen method) as `void* perfpilot_api(int k)`, and the driver
// hands the original's table here before any setup. The bench holds such an object as opaque
// storage, built in place by a generated builder from a saved random stream, and rebuilds it
// from that stream whenever it needs it again, so every copy is the same object.
namespace perfpilot {
namespace api {

using Table = void* (*)(int);
inline Table& table() {
  static Table t = nullptr;
  return t;
}

template <class F>
F fn(int k) {
  void* p = table() != nullptr ? table()(k) : nullptr;
  if (p == nullptr) throw std::runtime_error("the unit under test exports no API helper");
  return reinterpret_cast<F>(p);
}

// A weighted draw among `count` choices.
inline std::size_t pick(const unsigned* weights, std::size_t count, std::mt19937_64& rng) {
  unsigned long long total = 0;
  for (std::size_t k = 0; k < count; ++k) total += weights[k];
  if (total == 0) return 0;
  unsigned long long r = rng() % total;
  for (std::size_t k = 0; k < count; ++k) {
    if (r < weights[k]) return k;
    r -= weights[k];
  }
  return count - 1;
}

// Call a mutator; one that throws on these arguments is skipped (on both sides alike, since
// the object is built once for both).
template <class F, class... A>
void attempt(F f, void* at, A&&... args) {
  try {
    f(at, std::forward<A>(args)...);
  } catch (...) {
  }
}

// An argument of a mutator or accessor: integers of the profile below `bound` (the smallest
// integer constructor argument, a dimension) or n, floats of the profile, words of one or two
// characters (so keys repeat), other types as gen::make_any builds them at about sqrt(n).
template <class T>
T argument(std::size_t n, std::size_t bound, std::mt19937_64& rng) {
  if constexpr (std::is_same_v<T, bool> || std::is_floating_point_v<T> ||
                std::is_same_v<T, char>) {
    T x{};
    gen::fill(x, n, rng);
    return x;
  } else if constexpr (std::is_integral_v<T>) {
    return gen::integer<T>(bound > 0 ? bound : (n > 1 ? n : 2), rng);
  } else if constexpr (std::is_same_v<T, std::string>) {
    std::string s(1 + rng() % 2, ' ');
    for (auto& c : s) c = gen::character(rng);
    return s;
  } else {
    return gen::make_any<T>(gen::side(n), rng);
  }
}

// The storage and recipe of one object. When the class copies safely (the generated entry says
// so: its copy helper answers true), the object is built once and kept as a pristine copy that
// resets and copies are assigned from; otherwise it is rebuilt from its recipe each time. Either
// way an object keeps its address across resets, and the class's copies never share state.
class Object {
 public:
  using Build = void (*)(void* at, std::size_t n, std::mt19937_64& rng);
  Object() = default;
  Object(int base, Build build) : base_(base), build_(build) {}
  Object(const Object& o) : base_(o.base_), build_(o.build_) { take(o); }
  Object& operator=(const Object& o) {
    if (this != &o) {
      if (base_ != o.base_) clear();
      base_ = o.base_;
      build_ = o.build_;
      take(o);
    }
    return *this;
  }
  ~Object() { clear(); }

  // Build from `rng` (advancing it), remembering how.
  void build(std::size_t n, std::mt19937_64& rng) {
    n_ = n;
    saved_ = rng;
    profile_ = gen::profile();
    recorded_ = true;
    std::mt19937_64 r = saved_;
    make(r);
    rng = r;
    keep();
  }
  // The object as built, again, in the same storage.
  void rebuild() {
    if (!recorded_) return;
    if (pristine_live_ && at_ == nullptr) at_ = fn<void* (*)()>(base_ + kAlloc)();
    if (pristine_live_ && copy(at_, pristine_, live_)) {
      live_ = true;
      return;
    }
    std::mt19937_64 r = saved_;
    make(r);
  }
  void* at() const { return at_; }

 private:
  enum { kAlloc = 0, kFree = 1, kDestroy = 2, kConstruct = 3, kCopy = 4 };

  bool copy(void* to, const void* from, bool live) const {
    return fn<bool (*)(void*, const void*, bool)>(base_ + kCopy)(to, from, live);
  }
  // A pristine copy of the object just built, when the class copies safely.
  void keep() {
    if (!live_) return;
    if (pristine_ == nullptr) pristine_ = fn<void* (*)()>(base_ + kAlloc)();
    pristine_live_ = copy(pristine_, at_, pristine_live_) || pristine_live_;
  }
  void take(const Object& o) {
    n_ = o.n_;
    saved_ = o.saved_;
    profile_ = o.profile_;
    recorded_ = o.recorded_;
    if (!recorded_) return;
    if (o.pristine_live_) {
      if (pristine_ == nullptr) pristine_ = fn<void* (*)()>(base_ + kAlloc)();
      if (copy(pristine_, o.pristine_, pristine_live_)) {
        pristine_live_ = true;
        rebuild();
        return;
      }
    }
    std::mt19937_64 r = saved_;
    make(r);
    keep();
  }
  void make(std::mt19937_64& r) {
    destroy();
    if (at_ == nullptr) at_ = fn<void* (*)()>(base_ + kAlloc)();
    const int outer = gen::profile();
    gen::profile() = profile_;
    try {
      build_(at_, n_, r);
    } catch (...) {
      gen::profile() = outer;
      throw;  // the constructor threw: these inputs are invalid
    }
    gen::profile() = outer;
    live_ = true;
  }
  void destroy() {
    if (live_) fn<void (*)(void*)>(base_ + kDestroy)(at_);
    live_ = false;
  }
  void clear() {
    destroy();
    if (pristine_live_) fn<void (*)(void*)>(base_ + kDestroy)(pristine_);
    pristine_live_ = false;
    if (at_ != nullptr) fn<void (*)(void*)>(base_ + kFree)(at_);
    if (pristine_ != nullptr) fn<void (*)(void*)>(base_ + kFree)(pristine_);
    at_ = pristine_ = nullptr;
  }

  int base_ = -1;
  Build build_ = nullptr;
  void* at_ = nullptr;
  void* pristine_ = nullptr;
  bool live_ = false;
  bool pristine_live_ = false;
  bool recorded_ = false;
  std::size_t n_ = 0;
  int profile_ = 0;
  std::mt19937_64 saved_;
};

}  // namespace api
}  // namespace perfpilot
// ---- end of objects built through their public API -----------------------------------------

namespace perfpilot {
namespace detail {

// What the driver needs from a bench, independent of the function's type.
struct CaseBase {
  virtual ~CaseBase() = default;
  virtual void setup(std::size_t n, std::mt19937_64& rng) = 0;
  virtual void reset() = 0;
  virtual void call(void* fn) = 0;
  virtual void record(Recorder& r) = 0;
  // Give this bench the inputs of `other` (a bench of the same type and size) in its own
  // objects, at their addresses: the memory probe changes an input in place. False when the
  // bench type can neither be overwritten nor copied.
  virtual bool overwrite_from(CaseBase& other) = 0;
};

template <class B, class = void> struct has_reset : std::false_type {};
template <class B>
struct has_reset<B, std::void_t<decltype(std::declval<B&>().reset())>> : std::true_type {};
template <class B, class = void> struct has_overwrite : std::false_type {};
template <class B>
struct has_overwrite<B, std::void_t<decltype(std::declval<B&>().overwrite(std::declval<const B&>()))>>
    : std::true_type {};
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
  bool overwrite_from(CaseBase& other) override {
    const B& src = static_cast<Adapter&>(other).bench;
    if constexpr (has_overwrite<B>::value) {
      bench.overwrite(src);
      return true;
    } else if constexpr (std::is_copy_assignable_v<B>) {
      // Assignment between containers of equal size reuses the target's storage.
      bench = src;
      return true;
    } else if constexpr (std::is_copy_constructible_v<B>) {
      // The bench object (and so every input member) stays where it is.
      bench.~B();
      ::new (static_cast<void*>(&bench)) B(src);
      return true;
    } else {
      return false;
    }
  }
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
