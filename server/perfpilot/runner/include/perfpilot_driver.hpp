// PerfPilot measurement driver: loads the original (A) and the candidate (B) as shared objects in
// one process and calls them through the registered bench (see perfpilot_bench.hpp).
//
// Included once, after the bench definition, into a generated translation unit that becomes the
// driver executable. Usage:
//   driver MODE libA.so[,copy...] libB.so[,copy...] [key=value ...]
// Each side may name several byte-identical copies of its library. Every copy is mapped at its
// own addresses, and the timing loop rotates through them: where code happens to land (branch
// predictor and cache aliasing) moved identical code by up to 4% from one process to the next,
// and rotating over copies averages that out instead of baking one layout into the ratio.
// Both sides share one set of inputs, so data placement is identical too.
// Modes:
//   probe     print what this driver supports
//   validate  sizes=0,1,7: call both on each size and compare the records
//   time      calibrate the size, validate it, warm up, then time pairs in ABBA order
//   count     size=N side=A|B: one call between callgrind start/stop client requests
// Every line printed on stdout is one JSON object.
#pragma once

#include <dirent.h>
#include <dlfcn.h>
#include <time.h>

#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdlib>
#include <exception>
#include <map>
#include <memory>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define PERFPILOT_HAS_CALLGRIND 1
#endif
#endif
#ifndef PERFPILOT_HAS_CALLGRIND
#define PERFPILOT_HAS_CALLGRIND 0
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#endif

namespace perfpilot {
namespace driver {

using Args = std::map<std::string, std::string>;

inline std::string json_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 8);
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

inline void emit(const std::string& line) {
  std::fputs(line.c_str(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

inline long long now_ns(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

// Scheduler statistics summed over every thread of this process, from
// /proc/self/task/*/schedstat: time on a CPU (field 1) and run-queue wait, i.e. time spent ready
// to run but waiting for a CPU (field 2), both in ns; -1 when unavailable. The wait of a running
// thread is current (it is added when the thread gets a CPU).
struct SchedStat {
  long long run = -1;
  long long wait = -1;
};

inline SchedStat sched_stat() {
  SchedStat total;
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return total;
  total.run = 0;
  total.wait = 0;
  while (dirent* ent = readdir(dir)) {
    if (ent->d_name[0] == '.') continue;
    char path[320];
    std::snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", ent->d_name);
    FILE* f = std::fopen(path, "r");
    if (f == nullptr) continue;
    unsigned long long run = 0, wait = 0;
    if (std::fscanf(f, "%llu %llu", &run, &wait) == 2) {
      total.run += static_cast<long long>(run);
      total.wait += static_cast<long long>(wait);
    }
    std::fclose(f);
  }
  closedir(dir);
  return total;
}

using Bench = std::unique_ptr<detail::CaseBase>;

// One side under test: the function in each loaded copy of its library, and its last record.
struct Side {
  std::vector<void*> fns;
  void* fn = nullptr;  // the copy in use
  Recorder rec;
};

struct Sample {
  long long wall = 0;
  long long cpu = 0;
  long long wait = 0;
};

inline bool load_one(Side& side, const std::string& path, const char* name) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* err = dlerror();
    emit(std::string("{\"event\":\"load-error\",\"side\":\"") + name + "\",\"message\":\"" +
         json_escape(err ? err : "dlopen failed") + "\"}");
    return false;
  }
  using Entry = void* (*)();
  auto entry = reinterpret_cast<Entry>(dlsym(handle, "perfpilot_entry"));
  if (entry == nullptr) {
    emit(std::string("{\"event\":\"load-error\",\"side\":\"") + name +
         "\",\"message\":\"perfpilot_entry not found\"}");
    return false;
  }
  side.fns.push_back(entry());
  return true;
}

// Load every comma-separated copy of a side's library.
inline bool load(Side& side, const std::string& paths, const char* name) {
  std::stringstream in(paths);
  std::string path;
  while (std::getline(in, path, ','))
    if (!path.empty() && !load_one(side, path, name)) return false;
  if (side.fns.empty()) return false;
  side.fn = side.fns.front();
  return true;
}

// Build inputs of size n; false (with a reason) when the bench cannot build them.
inline bool setup(Bench& bench, std::size_t n, unsigned long long seed, std::string& why) {
  std::mt19937_64 rng(seed ^ (0x9E3779B97F4A7C15ULL * (n + 1)));
  try {
    bench->setup(n, rng);
  } catch (const std::bad_alloc&) {
    why = "out of memory";
    return false;
  } catch (const std::exception& e) {
    why = e.what();
    return false;
  }
  return true;
}

// The inputs set up again (it worked once already, so it works again): validation hands the
// candidate exactly what the original got, even from a bench without reset().
inline void fresh_inputs(Bench& bench, std::size_t n, unsigned long long seed) {
  std::string why;
  setup(bench, n, seed, why);
}

// One call, recorded. Exceptions thrown by the function are part of its behaviour.
inline void call_and_record(Bench& bench, Side& side) {
  side.rec.clear();
  bench->reset();
  try {
    bench->call(side.fn);
    bench->record(side.rec);
  } catch (const std::exception& e) {
    side.rec.exception(e.what());
  } catch (...) {
    side.rec.exception("unknown exception");
  }
}

// k timed calls (inputs reset before each, untimed); the sample is their sum.
inline Sample timed(Bench& bench, void* fn, long long k) {
  Sample s;
  for (long long r = 0; r < k; ++r) {
    bench->reset();
    SchedStat s0 = sched_stat();
    // The calling thread's CPU clock: exact, whereas the process clock becomes tick-granular
    // once RLIMIT_CPU is set (as the sandbox does). Used for serial code only.
    long long c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
    long long t0 = now_ns(CLOCK_MONOTONIC);
    try {
      bench->call(fn);
    } catch (...) {
    }
    long long t1 = now_ns(CLOCK_MONOTONIC);
    long long c1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
    SchedStat s1 = sched_stat();
    s.wall += t1 - t0;
    s.cpu += c1 - c0;
    s.wait += (s0.wait >= 0 && s1.wait >= 0) ? (s1.wait - s0.wait) : 0;
  }
  return s;
}

inline std::string describe(const Entry& e, const std::vector<std::string>& labels) {
  std::ostringstream o;
  o.precision(17);
  o << (e.label < static_cast<int>(labels.size()) ? labels[e.label] : std::string("value"));
  for (int d = 0; d < e.depth && d < 3; ++d) o << '[' << e.index[d] << ']';
  o << " = ";
  switch (e.kind) {
    case 'i': o << e.i; break;
    case 'u': o << e.u; break;
    case 'f': o << e.f; break;
    case 'n': o << "(length " << e.u << ")"; break;
    case 'e': o << "exception: " << e.s; break;
    default: {
      std::string s = e.s.size() > 80 ? e.s.substr(0, 80) + "..." : e.s;
      o << '"' << s << '"';
    }
  }
  return o.str();
}

inline bool same(const Entry& a, const Entry& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case 'i': return a.i == b.i;
    case 'u': case 'n': return a.u == b.u;
    case 'f': {
      if (std::isnan(a.f) && std::isnan(b.f)) return true;
      if (a.f == b.f) return true;
      double diff = std::fabs(a.f - b.f);
      double scale = std::max(std::fabs(a.f), std::fabs(b.f));
      double tol = std::max(a.tol, b.tol);
      return diff <= tol * scale || diff <= tol * 1e-3;
    }
    case 'e': return true;  // both threw: messages may legitimately differ
    default: return a.s == b.s;
  }
}

// Empty when the records agree, else a description of the first difference.
inline std::string compare(const Recorder& a, const Recorder& b) {
  const auto& ea = a.entries();
  const auto& eb = b.entries();
  std::size_t n = std::min(ea.size(), eb.size());
  for (std::size_t k = 0; k < n; ++k) {
    if (!same(ea[k], eb[k])) {
      return "original " + describe(ea[k], a.labels()) + ", candidate " +
             describe(eb[k], b.labels());
    }
  }
  if (ea.size() != eb.size()) {
    std::ostringstream o;
    o << "original recorded " << ea.size() << " values, candidate " << eb.size();
    return o.str();
  }
  return "";
}

inline std::vector<std::size_t> parse_sizes(const std::string& s) {
  std::vector<std::size_t> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(static_cast<std::size_t>(std::strtoull(item.c_str(), nullptr, 10)));
  return out;
}

inline long long arg_ll(const Args& args, const char* key, long long dflt) {
  auto it = args.find(key);
  return it == args.end() ? dflt : std::strtoll(it->second.c_str(), nullptr, 10);
}

inline int run_validate(Bench& bench, Side& a, Side& b, const Args& args,
                        const detail::Info& info, unsigned long long seed) {
  std::vector<std::size_t> sizes = parse_sizes(args.count("sizes") ? args.at("sizes") : "");
  if (sizes.empty()) sizes = info.edges;
  for (std::size_t n : sizes) {
    if (info.max_size && n > info.max_size) continue;
    std::string why;
    if (!setup(bench, n, seed, why)) {
      emit("{\"event\":\"skip\",\"size\":" + std::to_string(n) + ",\"reason\":\"" +
           json_escape(why) + "\"}");
      continue;
    }
    emit("{\"event\":\"begin\",\"size\":" + std::to_string(n) + ",\"side\":\"A\"}");
    call_and_record(bench, a);
    emit("{\"event\":\"begin\",\"size\":" + std::to_string(n) + ",\"side\":\"B\"}");
    fresh_inputs(bench, n, seed);
    call_and_record(bench, b);
    std::string diff = compare(a.rec, b.rec);
    if (!diff.empty()) {
      emit("{\"event\":\"mismatch\",\"size\":" + std::to_string(n) + ",\"detail\":\"" +
           json_escape(diff) + "\"}");
      return 0;
    }
    emit("{\"event\":\"ok\",\"size\":" + std::to_string(n) + "}");
  }
  emit("{\"event\":\"done\"}");
  return 0;
}

inline int run_time(Bench& bench, Side& a, Side& b, const Args& args,
                    const detail::Info& info, unsigned long long seed) {
  const long long target = arg_ll(args, "target_ns", 5000000);
  // "pairs" clean pairs are wanted; contended pairs (a call waited for a CPU longer than
  // wait_ppm millionths of its wall time) do not count, up to max_pairs pairs in all.
  const long long pairs = arg_ll(args, "pairs", 30);
  const long long max_pairs = std::max(pairs, arg_ll(args, "max_pairs", pairs * 4));
  const long long wait_ppm = arg_ll(args, "wait_ppm", 20000);
  const long long warmup = arg_ll(args, "warmup", 2);
  const long long budget_ns = arg_ll(args, "budget_ms", 30000) * 1000000LL;
  std::size_t max_size = static_cast<std::size_t>(arg_ll(args, "max_size", 1LL << 20));
  if (info.max_size && info.max_size < max_size) max_size = info.max_size;
  std::size_t n = static_cast<std::size_t>(arg_ll(args, "min_size", 16));
  if (info.min_size) n = info.min_size;
  if (n > max_size) n = max_size;
  const long long start = now_ns(CLOCK_MONOTONIC);

  // Calibration: double the size until the slower side's call takes at least the target.
  std::size_t chosen = 0;
  long long slow_ns = 0;
  for (;;) {
    std::string why;
    if (!setup(bench, n, seed, why)) {
      emit("{\"event\":\"calib-stop\",\"size\":" + std::to_string(n) + ",\"reason\":\"" +
           json_escape(why) + "\"}");
      break;
    }
    // Say who is about to run, so that a crash can be attributed.
    emit("{\"event\":\"begin\",\"size\":" + std::to_string(n) + ",\"side\":\"A\"}");
    long long ta = timed(bench, a.fn, 1).wall;
    emit("{\"event\":\"begin\",\"size\":" + std::to_string(n) + ",\"side\":\"B\"}");
    long long tb = timed(bench, b.fn, 1).wall;
    if (std::max(ta, tb) >= target && n < max_size) {
      // About to stop here: time both again, so that one-time costs of a first call (an
      // OpenMP thread pool starting, first page faults) do not pick a size far too small.
      emit("{\"event\":\"begin\",\"size\":" + std::to_string(n) + ",\"side\":\"A\"}");
      ta = std::min(ta, timed(bench, a.fn, 1).wall);
      emit("{\"event\":\"begin\",\"size\":" + std::to_string(n) + ",\"side\":\"B\"}");
      tb = std::min(tb, timed(bench, b.fn, 1).wall);
    }
    emit("{\"event\":\"calib\",\"size\":" + std::to_string(n) + ",\"a_ns\":" + std::to_string(ta) +
         ",\"b_ns\":" + std::to_string(tb) + "}");
    chosen = n;
    slow_ns = std::max(ta, tb);
    if (slow_ns >= target || n >= max_size || now_ns(CLOCK_MONOTONIC) - start > budget_ns / 4)
      break;
    n = std::min(max_size, n * 2);
  }
  if (chosen == 0 && slow_ns == 0) {
    // Even the smallest size could not be set up (or size 0 was requested).
    std::string why;
    if (!setup(bench, n, seed, why)) {
      emit("{\"event\":\"error\",\"message\":\"cannot build inputs: " + json_escape(why) + "\"}");
      return 0;
    }
    chosen = n;
  }
  n = chosen;
  std::string why;
  if (!setup(bench, n, seed, why)) {
    emit("{\"event\":\"error\",\"message\":\"cannot build inputs: " + json_escape(why) + "\"}");
    return 0;
  }
  // Validate at the chosen size before any timing.
  call_and_record(bench, a);
  fresh_inputs(bench, n, seed);
  call_and_record(bench, b);
  std::string diff = compare(a.rec, b.rec);
  if (!diff.empty()) {
    emit("{\"event\":\"mismatch\",\"size\":" + std::to_string(n) + ",\"detail\":\"" +
         json_escape(diff) + "\"}");
    return 0;
  }
  a.rec.clear();
  b.rec.clear();
  long long reps = 1;
  if (slow_ns > 0 && slow_ns < target) reps = (target + slow_ns - 1) / slow_ns;
  if (slow_ns <= 0) reps = 1000;
  emit("{\"event\":\"chosen\",\"size\":" + std::to_string(n) + ",\"reps\":" +
       std::to_string(reps) + ",\"copies\":[" + std::to_string(a.fns.size()) + "," +
       std::to_string(b.fns.size()) + "]}");

  // The first copies get the full warm-up (thread pools, caches); every other copy one call,
  // which faults its pages in and binds its symbols.
  for (long long w = 0; w < warmup; ++w) {
    timed(bench, a.fns.front(), reps);
    timed(bench, b.fns.front(), reps);
  }
  for (std::size_t c = 1; c < a.fns.size(); ++c) timed(bench, a.fns[c], reps);
  for (std::size_t c = 1; c < b.fns.size(); ++c) timed(bench, b.fns[c], reps);
  std::string out = "{\"event\":\"timing\",\"size\":" + std::to_string(n) +
                    ",\"reps\":" + std::to_string(reps) + ",\"pairs\":[";
  long long done = 0;
  long long clean = 0;
  for (long long p = 0; p < max_pairs && clean < pairs; ++p) {
    // Pairs 2k and 2k+1 (AB, then BA) use one combination of copies; with m copies a side,
    // 2*m*m pairs run every combination in both orders.
    const std::size_t block = static_cast<std::size_t>(p / 2);
    void* fa = a.fns[block % a.fns.size()];
    void* fb = b.fns[(block + block / a.fns.size()) % b.fns.size()];
    Sample sa, sb;
    if (p % 2 == 0) {
      sa = timed(bench, fa, reps);
      sb = timed(bench, fb, reps);
    } else {
      sb = timed(bench, fb, reps);
      sa = timed(bench, fa, reps);
    }
    if (p) out += ",";
    out += "[" + std::to_string(sa.wall) + "," + std::to_string(sb.wall) + "," +
           std::to_string(sa.wait) + "," + std::to_string(sb.wait) + "," +
           std::to_string(sa.cpu) + "," + std::to_string(sb.cpu) + "]";
    ++done;
    if (sa.wait * 1000000 <= wait_ppm * sa.wall && sb.wait * 1000000 <= wait_ppm * sb.wall) ++clean;
    if (now_ns(CLOCK_MONOTONIC) - start > budget_ns && done >= 6) break;
  }
  out += "]}";
  emit(out);
  return 0;
}

inline int run_count(Bench& bench, Side& a, Side& b, const Args& args,
                     unsigned long long seed) {
  std::size_t n = static_cast<std::size_t>(arg_ll(args, "size", 1000));
  Side& s = (args.count("side") && args.at("side") == "B") ? b : a;
  std::string why;
  if (!setup(bench, n, seed, why)) {
    emit("{\"event\":\"error\",\"message\":\"cannot build inputs: " + json_escape(why) + "\"}");
    return 0;
  }
  timed(bench, s.fn, 1);  // warm-up outside the counted region (thread pools, first-touch)
  bench->reset();
  CALLGRIND_START_INSTRUMENTATION;
  try {
    bench->call(s.fn);
  } catch (...) {
  }
  CALLGRIND_STOP_INSTRUMENTATION;
  emit("{\"event\":\"counted\",\"size\":" + std::to_string(n) + "}");
  return 0;
}

inline int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s probe|validate|time|count libA.so[,...] libB.so[,...] [key=value ...]\n",
                 argv[0]);
    return 2;
  }
  std::string mode = argv[1];
  if (mode == "probe") {
    emit(std::string("{\"event\":\"probe\",\"callgrind\":") +
         (PERFPILOT_HAS_CALLGRIND ? "true" : "false") + "}");
    return 0;
  }
  if (argc < 4) return 2;
  Args args;
  for (int k = 4; k < argc; ++k) {
    std::string kv = argv[k];
    auto eq = kv.find('=');
    if (eq != std::string::npos) args[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  const detail::Info info = detail::registered();
  unsigned long long seed = static_cast<unsigned long long>(arg_ll(args, "seed", 12345));
  Side a, b;
  if (!load(a, argv[2], "A") || !load(b, argv[3], "B")) return 3;
  Bench bench(info.make());
  if (mode == "validate") return run_validate(bench, a, b, args, info, seed);
  if (mode == "time") return run_time(bench, a, b, args, info, seed);
  if (mode == "count") return run_count(bench, a, b, args, seed);
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}

}  // namespace driver
}  // namespace perfpilot

int main(int argc, char** argv) { return perfpilot::driver::main(argc, argv); }
