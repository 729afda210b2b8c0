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

inline std::size_t side(std::size_t n) {
  std::size_t m = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(n))));
  return m;
}

template <class T> struct is_vector : std::false_type {};
template <class T, class Al> struct is_vector<std::vector<T, Al>> : std::true_type {};

// Integers are drawn from [0, n) so that duplicates occur; floating values from [0, 1);
// characters are lowercase letters. A vector of vectors (or of strings) is about sqrt(n) by
// sqrt(n), so the total element count stays near n.
template <class T>
void fill(T& x, std::size_t n, std::mt19937_64& rng) {
  if constexpr (std::is_same_v<T, bool>) {
    x = (rng() & 1u) != 0;
  } else if constexpr (std::is_same_v<T, char> || std::is_same_v<T, signed char> ||
                       std::is_same_v<T, unsigned char>) {
    x = static_cast<T>('a' + rng() % 26);
  } else if constexpr (std::is_integral_v<T>) {
    std::size_t range = n > 1 ? n : 2;
    x = static_cast<T>(rng() % range);
  } else if constexpr (std::is_floating_point_v<T>) {
    x = static_cast<T>(std::uniform_real_distribution<double>(0.0, 1.0)(rng));
  } else if constexpr (std::is_same_v<T, std::string>) {
    x.resize(n);
    for (auto& c : x) c = static_cast<char>('a' + rng() % 26);
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
  } else {
    static_assert(sizeof(T) == 0, "perfpilot::gen::fill: unsupported type");
  }
}

// A small scalar argument that is not a size: integers in [0, 100], floats in [0, 1).
template <class T>
void scalar(T& x, std::mt19937_64& rng) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) > 1) {
    x = static_cast<T>(rng() % 101);
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
