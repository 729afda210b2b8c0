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
// Both sides share the same inputs (two sets, alternated), so data placement is identical too.
// Modes:
//   probe     print what this driver supports
//   check     sizes=0,1,7 cases=P:S,... [sides=A] [fork=0] [stop_ns=N] [exact=1] [probe=1]
//             [times=1]: each case (value profile and seed) in a child process, calling both
//             (or only A) on each size and comparing records; a size at which A fails is
//             reported invalid and skipped. exact=1: these sizes even where a bench has edge
//             sizes of its own. probe=1 adds the memory probe at the second-largest size (see
//             memory_probe). times=1 reports the time of A's call at each size ("size"
//             events). With stop_ns (a scan of sizes), a size at which A runs out of time ends
//             the case: larger ones would only take longer. With both sides, the first case on
//             which they disagree (or the candidate fails) ends the run: it is the verdict.
// Every mode takes consts=1000000007,0.5,... (numbers of the code, for the constants profile).
//   mutants   ids=1,2,... cases=... sizes=...: B is built with mutant schemata; which mutants
//             do the cases tell apart from A?
//   time      case=P:S [partner=P:S] [cut_floor_ns=N]: calibrate the size, probe it
//             (memory_probe), warm up, time pairs in ABBA order, each sample alternating the
//             case's inputs with its partner's (copied in turn into one set of objects), then
//             probe again on every copy of B. A call of B that runs past 20 times A's time
//             on the same inputs (and past cut_floor_ns) is stopped: a "cutoff" event.
//   count     size=N side=A|B case=P:S [partner=P:S]: a warm-up call at half the size, then
//             a call on the case's inputs and one on the partner's (the calls of one timed
//             sample) between callgrind start/stop client requests
// Every event is one JSON object a line, on the authenticated channel (see Channel).
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <dlfcn.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
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

// The result channel. Events go to a descriptor given as channel=N (a pipe only the runner
// reads, never stdout, which the code under test can write), each line
// authenticated with SipHash-2-4 under a key the runner hands over on stdin before any library
// is loaded: code under test that prints or writes a fake event cannot produce a valid tag.
// Without it (a person running the driver by hand) events go to stdout, untagged.
struct Channel {
  int fd = 1;
  bool keyed = false;
  unsigned long long k0 = 0, k1 = 0;
};

inline Channel& channel() {
  static Channel c;
  return c;
}

inline unsigned long long rotl(unsigned long long x, int b) { return (x << b) | (x >> (64 - b)); }

inline unsigned long long siphash(unsigned long long k0, unsigned long long k1,
                                  const std::string& m) {
  unsigned long long v0 = 0x736f6d6570736575ULL ^ k0, v1 = 0x646f72616e646f6dULL ^ k1;
  unsigned long long v2 = 0x6c7967656e657261ULL ^ k0, v3 = 0x7465646279746573ULL ^ k1;
  auto round = [&]() {
    v0 += v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32);
    v2 += v3; v3 = rotl(v3, 16); v3 ^= v2;
    v0 += v3; v3 = rotl(v3, 21); v3 ^= v0;
    v2 += v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32);
  };
  const std::size_t len = m.size();
  std::size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    unsigned long long w = 0;
    for (int b = 0; b < 8; ++b) w |= static_cast<unsigned long long>(static_cast<unsigned char>(m[i + b])) << (8 * b);
    v3 ^= w; round(); round(); v0 ^= w;
  }
  unsigned long long last = static_cast<unsigned long long>(len & 0xff) << 56;
  for (int b = 0; i + b < len; ++b) last |= static_cast<unsigned long long>(static_cast<unsigned char>(m[i + b])) << (8 * b);
  v3 ^= last; round(); round(); v0 ^= last;
  v2 ^= 0xff; round(); round(); round(); round();
  return v0 ^ v1 ^ v2 ^ v3;
}

// Read the 32-hex-digit key from stdin and keep descriptor fd as the channel, if both exist.
inline void open_channel(int fd) {
  Channel& c = channel();
  if (fd < 3 || fcntl(fd, F_GETFD) == -1) return;
  char buf[40] = {0};
  std::size_t got = 0;
  while (got < 32) {
    ssize_t r = read(0, buf + got, 32 - got);
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
  }
  if (got != 32) return;
  std::string hex(buf, 32);
  c.k0 = std::strtoull(hex.substr(0, 16).c_str(), nullptr, 16);
  c.k1 = std::strtoull(hex.substr(16, 16).c_str(), nullptr, 16);
  std::memset(buf, 0, sizeof buf);
  c.fd = fd;
  c.keyed = true;
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  int null = open("/dev/null", O_RDONLY);
  if (null >= 0) {
    dup2(null, 0);
    close(null);
  }
}

// An event line as it goes out on the channel: tagged when the channel is keyed, with its
// newline.
inline std::string tagged(const std::string& line) {
  Channel& c = channel();
  std::string out = line;
  if (c.keyed && !out.empty() && out.back() == '}') {
    char tag[24];
    std::snprintf(tag, sizeof tag, "%016llx", siphash(c.k0, c.k1, line));
    out.pop_back();
    out += std::string(",\"mac\":\"") + tag + "\"}";
  }
  out += '\n';
  return out;
}

inline void emit(const std::string& line) {
  Channel& c = channel();
  const std::string out = tagged(line);
  if (c.fd == 1) {
    std::fputs(out.c_str(), stdout);
    std::fflush(stdout);
    return;
  }
  const char* p = out.data();
  std::size_t left = out.size();
  while (left > 0) {
    ssize_t w = write(c.fd, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    p += w;
    left -= static_cast<std::size_t>(w);
  }
}

inline long long now_ns(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

// The cut-off of a slow candidate: a call of B that runs past `factor` times A's time on the
// same inputs (and past a floor that absorbs a busy machine) is stopped by a timer signal.
// Its event is formatted and tagged before the call, so the handler only writes it and ends
// the process (write and _exit are safe in a signal handler).
struct Cutoff {
  std::string line;
  int fd = 1;
  long long factor = 0;   // 0: no cut-off
  long long floor_ns = 0;
};

inline Cutoff& cutoff() {
  static Cutoff c;
  return c;
}

inline void on_cutoff(int) {
  const Cutoff& c = cutoff();
  const char* p = c.line.data();
  std::size_t left = c.line.size();
  while (left > 0) {
    ssize_t w = write(c.fd, p, left);
    if (w <= 0) break;
    p += w;
    left -= static_cast<std::size_t>(w);
  }
  _exit(0);
}

// Arm the cut-off for B's part of a step at size n whose A part took a_ns (wall time, the
// untimed work around the calls included: resetting and copying inputs, recording outputs).
inline void arm_cutoff(std::size_t n, long long a_ns) {
  Cutoff& c = cutoff();
  if (c.factor <= 0 || a_ns <= 0) return;
  const long long limit = std::max(c.factor * a_ns, c.floor_ns);
  c.line = tagged("{\"event\":\"cutoff\",\"side\":\"B\",\"size\":" + std::to_string(n) +
                  ",\"limit_ns\":" + std::to_string(limit) + ",\"a_ns\":" +
                  std::to_string(a_ns) + "}");
  c.fd = channel().fd;
  struct sigaction sa{};
  sa.sa_handler = on_cutoff;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGALRM, &sa, nullptr);
  itimerval t{};
  t.it_value.tv_sec = static_cast<time_t>(limit / 1000000000LL);
  t.it_value.tv_usec = static_cast<suseconds_t>((limit % 1000000000LL) / 1000);
  if (t.it_value.tv_sec == 0 && t.it_value.tv_usec == 0) t.it_value.tv_usec = 1;
  setitimer(ITIMER_REAL, &t, nullptr);
}

inline void disarm_cutoff() {
  itimerval t{};
  setitimer(ITIMER_REAL, &t, nullptr);
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
  std::vector<void*> handles;
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
  side.handles.push_back(handle);
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

// One input case: a value profile (see perfpilot::gen::Profile) and a seed.
struct Case {
  int profile = 0;
  unsigned long long seed = 12345;
  std::vector<std::size_t> skip;  // sizes at which these inputs are invalid for the original
};

// "p:s,p:s/7/33,..." (a bare number is a seed of the natural profile; /N skips size N).
inline std::vector<Case> parse_cases(const std::string& text, unsigned long long dflt_seed) {
  std::vector<Case> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    Case c;
    std::stringstream parts(item);
    std::string head;
    std::getline(parts, head, '/');
    auto colon = head.find(':');
    if (colon == std::string::npos) {
      c.seed = std::strtoull(head.c_str(), nullptr, 10);
    } else {
      c.profile = std::atoi(head.substr(0, colon).c_str());
      c.seed = std::strtoull(head.c_str() + colon + 1, nullptr, 10);
    }
    std::string skip;
    while (std::getline(parts, skip, '/'))
      if (!skip.empty())
        c.skip.push_back(static_cast<std::size_t>(std::strtoull(skip.c_str(), nullptr, 10)));
    out.push_back(c);
  }
  if (out.empty()) out.push_back(Case{0, dflt_seed, {}});
  return out;
}

// The second input of the memory probe and of timing: the same value profile (so the same size
// and shape), the next seed.
inline Case partner_of(const Case& c) {
  Case p;
  p.profile = c.profile;
  p.seed = c.seed + 1;
  return p;
}

inline std::string case_json(const Case& c) {
  return "\"profile\":" + std::to_string(c.profile) + ",\"seed\":" + std::to_string(c.seed);
}

// Build inputs of size n; false (with a reason) when the bench cannot build them.
inline bool setup(Bench& bench, std::size_t n, const Case& c, std::string& why) {
  perfpilot::gen::profile() = c.profile;
  std::mt19937_64 rng(c.seed ^ (0x9E3779B97F4A7C15ULL * (n + 1)) ^
                      (0xD1B54A32D192ED03ULL * static_cast<unsigned long long>(c.profile)));
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
inline void fresh_inputs(Bench& bench, std::size_t n, const Case& c) {
  std::string why;
  setup(bench, n, c, why);
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

// k timed calls (inputs reset before each, untimed); the sample is their sum. The calls
// alternate between inputs x and y (x first), two inputs of one size, so that a function that
// answers from memory of its last input gets no help from it. With `into`, each call's input
// is first copied into that one bench (untimed, like reset()), so every call runs on the same
// objects at the same addresses and the data's footprint stays that of one input; x and y are
// never called then, and stay as set up.
inline Sample timed(Bench* into, Bench& x, Bench& y, void* fn, long long k) {
  Sample s;
  for (long long r = 0; r < k; ++r) {
    Bench& from = (r % 2 == 0) ? x : y;
    if (into != nullptr) (*into)->overwrite_from(*from);
    Bench& bench = into != nullptr ? *into : from;
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

inline Sample timed(Bench& bench, void* fn, long long k) {
  return timed(nullptr, bench, bench, fn, k);
}

inline std::string describe(const Recorder& r, const Entry& e) {
  const std::vector<std::string>& labels = r.labels();
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
    case 'e': o << "exception: " << r.text(e); break;
    default: {
      const std::string& t = r.text(e);
      std::string s = t.size() > 80 ? t.substr(0, 80) + "..." : t;
      o << '"' << s << '"';
    }
  }
  return o.str();
}

inline bool same(const Recorder& ra, const Entry& a, const Recorder& rb, const Entry& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case 'i': return a.i == b.i;
    case 'u': case 'n': return a.u == b.u;
    case 'f': {
      if (std::isnan(a.f) && std::isnan(b.f)) return true;
      if (a.f == b.f) return true;
      // An infinity or a NaN equals only itself: a tolerance relative to an infinite scale
      // would make every value agree with it.
      if (!std::isfinite(a.f) || !std::isfinite(b.f)) return false;
      double diff = std::fabs(a.f - b.f);
      double scale = std::max(std::fabs(a.f), std::fabs(b.f));
      double tol = std::max(a.tol, b.tol);
      return diff <= tol * scale || diff <= tol * 1e-3;
    }
    case 'e': return true;  // both threw: messages may legitimately differ
    default: return ra.text(a) == rb.text(b);
  }
}

// Empty when the records agree, else a description of the first difference.
inline std::string compare(const Recorder& a, const Recorder& b) {
  const auto& ea = a.entries();
  const auto& eb = b.entries();
  std::size_t n = std::min(ea.size(), eb.size());
  for (std::size_t k = 0; k < n; ++k) {
    if (!same(a, ea[k], b, eb[k])) {
      return "original " + describe(a, ea[k]) + ", candidate " + describe(b, eb[k]);
    }
  }
  if (ea.size() != eb.size()) {
    std::ostringstream o;
    o << "original recorded " << ea.size() << " values, candidate " << eb.size();
    return o.str();
  }
  return "";
}

// The memory probe on one side: a call on the inputs of x copied into p, then the inputs of y
// copied over them in place (the same objects at the same addresses, other values), then x's
// copied back; the three records go to out. A function that remembers its last input (by its
// address, or a cheap fingerprint) and returns the remembered answer gives itself away: its
// record after the change differs from the original's. x and y are never called, so they stay
// as set up. False when the bench cannot overwrite its inputs.
inline bool memory_probe(Bench& p, Bench& x, Bench& y, Side& side, std::vector<Recorder>& out) {
  out.assign(3, Recorder());
  Bench* order[3] = {&x, &y, &x};
  for (int k = 0; k < 3; ++k) {
    if (!p->overwrite_from(**order[k])) return false;
    call_and_record(p, side);
    out[k] = std::move(side.rec);  // moved, not copied: a large record is held once
    side.rec.clear();
  }
  return true;
}

// Empty when the candidate's probe records agree with the original's; else the first
// difference, and in memory whether the candidate returned the answer to the previous input.
inline std::string compare_probe(const std::vector<Recorder>& a, const std::vector<Recorder>& b,
                                 bool& memory) {
  static const char* const when[3] = {"", "after its input was overwritten in place: ",
                                      "after its input was restored in place: "};
  memory = false;
  for (std::size_t k = 0; k < a.size() && k < b.size(); ++k) {
    std::string diff = compare(a[k], b[k]);
    if (diff.empty()) continue;
    memory = k > 0 && compare(a[k - 1], b[k]).empty();
    return when[k % 3] + diff;
  }
  return "";
}

inline std::string probe_mismatch_json(const std::string& diff, bool memory) {
  return std::string(",\"probe\":true,\"memory\":") + (memory ? "true" : "false") +
         ",\"detail\":\"" + json_escape(diff) + "\"";
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

// What a forked checker is doing, in memory shared with the parent: which side runs at which
// size (so that a crash is blamed on the right side and the next child can resume after it)
// and whether every comparison finished (so that a function calling exit(0) is not taken for
// agreement).
struct Progress {
  volatile int side;
  volatile long long size;
  volatile long long index;  // position in the size list
  volatile int finished;
  volatile int checked;      // sizes compared (or run, for A alone) without a failure
  volatile long long recorded;  // values A's calls recorded (none: nothing can be compared)
  volatile long long a_ns;      // how long A's call took on the input B is running on
  volatile long long b_since;   // when B's call began (0: B is not running)
};

inline Progress* shared_progress() {
  void* p = mmap(nullptr, sizeof(Progress), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                 -1, 0);
  if (p == MAP_FAILED) {
    static Progress local;
    return &local;
  }
  return static_cast<Progress*>(p);
}

inline bool skipped(const Case& c, std::size_t n) {
  for (std::size_t k : c.skip)
    if (k == n) return true;
  return false;
}

// The size of the memory probe: the second-largest size validated (the largest when there is
// only one), small enough to cost little beside the rest of validation. 0: none.
inline std::size_t probe_size(const std::vector<std::size_t>& sizes, const detail::Info& info) {
  std::size_t first = 0, second = 0;
  for (std::size_t n : sizes) {
    if (info.max_size && n > info.max_size) continue;
    if (n > first) {
      second = first;
      first = n;
    } else if (n > second && n < first) {
      second = n;
    }
  }
  return second > 1 ? second : first;
}

// The memory probe of one case at size n on A (and B): inputs of the case and of its partner,
// set up once in benches of their own. 0 when the records agree (or only A runs, or the
// bench cannot be probed), 1 after a mismatch (emitted unless quiet).
inline int probe_case(Bench& bench, Side& a, Side* b, const Case& c, std::size_t n,
                      const detail::Info& info, Progress* prog, bool quiet) {
  Bench x(info.make()), y(info.make());
  std::string why;
  if (!setup(x, n, c, why) || !setup(y, n, partner_of(c), why)) return 0;
  std::vector<Recorder> ra, rb;
  prog->side = 0;
  if (!memory_probe(bench, x, y, a, ra)) return 0;
  if (b == nullptr) return 0;
  prog->side = 1;
  memory_probe(bench, x, y, *b, rb);
  prog->side = -1;
  bool memory = false;
  std::string diff = compare_probe(ra, rb, memory);
  if (diff.empty()) return 0;
  if (!quiet)
    emit("{\"event\":\"mismatch\",\"size\":" + std::to_string(n) + "," + case_json(c) +
         probe_mismatch_json(diff, memory) + "}");
  return 1;
}

// One case at every size from position `from`, in this process: 0 when the sides agree (or
// only A runs), 1 after a mismatch (emitted unless quiet), 2 when no size could be set up.
//   stop_ns > 0: stop after the first size at which A's call takes longer (a scan of sizes).
//   probe: run the memory probe at probe_size(sizes) too.
inline int check_case(Bench& bench, Side& a, Side* b, const Case& c,
                      const std::vector<std::size_t>& sizes, const detail::Info& info,
                      Progress* prog, bool quiet, std::size_t from = 0, long long stop_ns = 0,
                      bool probe = false, bool times = false) {
  const std::size_t probe_n = probe ? probe_size(sizes, info) : 0;
  int built = 0;
  for (std::size_t k = from; k < sizes.size(); ++k) {
    const std::size_t n = sizes[k];
    if ((info.max_size && n > info.max_size) || skipped(c, n)) continue;
    std::string why;
    if (!setup(bench, n, c, why)) continue;
    ++built;
    prog->index = static_cast<long long>(k);
    prog->size = static_cast<long long>(n);
    prog->side = 0;
    const long long t0 = now_ns(CLOCK_MONOTONIC);
    call_and_record(bench, a);
    const long long took = now_ns(CLOCK_MONOTONIC) - t0;
    prog->a_ns = took;
    prog->recorded = prog->recorded + static_cast<long long>(a.rec.entries().size());
    if (times)
      emit("{\"event\":\"size\",\"size\":" + std::to_string(n) + "," + case_json(c) +
           ",\"ns\":" + std::to_string(took) + "}");
    if (b != nullptr) {
      prog->side = -1;  // setting the inputs up again is neither side's doing
      fresh_inputs(bench, n, c);
      prog->side = 1;
      prog->b_since = now_ns(CLOCK_MONOTONIC);
      call_and_record(bench, *b);
      prog->b_since = 0;
    }
    prog->side = -1;
    if (b != nullptr) {
      std::string diff = compare(a.rec, b->rec);
      if (!diff.empty()) {
        if (!quiet)
          emit("{\"event\":\"mismatch\",\"size\":" + std::to_string(n) + "," + case_json(c) +
               ",\"detail\":\"" + json_escape(diff) + "\"}");
        return 1;
      }
    }
    if (probe_n && n == probe_n && probe_case(bench, a, b, c, n, info, prog, quiet) == 1)
      return 1;
    prog->checked = prog->checked + 1;
    if (stop_ns > 0 && took > stop_ns) break;
  }
  prog->finished = 1;
  return built ? 0 : 2;
}

struct ChildEnd {
  std::string status;  // ok | mismatch | noinputs | crash | timeout | sanitizer
  int side = -1;       // 0: A, 1: B, -1: neither was running
  long long size = -1;
  int signal = 0;
  int code = 0;
  long pid = 0;
  // On a timeout in B's call: how long A's call took on that input, and how long B's had run.
  long long a_ns = 0;
  long long b_ns = 0;
};

// Cap the address space at what is mapped now plus mem_mb: under AddressSanitizer no limit
// can be set for the whole process (its shadow reserves terabytes), and its own RSS limit runs
// in a thread that a forked child does not have.
inline void limit_memory(long long mem_mb) {
  if (mem_mb <= 0) return;
  FILE* f = std::fopen("/proc/self/statm", "r");
  unsigned long long pages = 0;
  if (f != nullptr) {
    if (std::fscanf(f, "%llu", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  rlimit rl{};
  rl.rlim_cur = rl.rlim_max = static_cast<rlim_t>(pages * static_cast<unsigned long long>(
      sysconf(_SC_PAGESIZE)) + static_cast<unsigned long long>(mem_mb) * 1024ULL * 1024ULL);
  setrlimit(RLIMIT_AS, &rl);
}

// Run body() in a forked child with a time limit; a crash, a sanitizer report or a hang ends
// only the child. The parent never calls the functions under test.
template <class F>
ChildEnd in_child(F&& body, long long timeout_ms, Progress* prog, long long mem_mb) {
  prog->side = -1;
  prog->size = -1;
  prog->index = -1;
  prog->finished = 0;
  prog->a_ns = 0;
  prog->b_since = 0;
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    limit_memory(mem_mb);
    // The child's stderr (sanitizer reports, the code's own messages) goes to a file of its
    // own, so that a report is attributed to the case that produced it.
    char name[64];
    std::snprintf(name, sizeof name, "child.%ld.err", static_cast<long>(getpid()));
    int err = open(name, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0600);
    if (err >= 0) {
      dup2(err, 2);
      close(err);
    }
    int rc = body();
    std::fflush(nullptr);
    _exit(rc);
  }
  ChildEnd end;
  end.pid = static_cast<long>(pid);
  if (pid < 0) {
    end.status = "crash";
    return end;
  }
  const long long deadline = now_ns(CLOCK_MONOTONIC) + timeout_ms * 1000000LL;
  int status = 0;
  bool timed_out = false;
  for (;;) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) break;
    const long long now = now_ns(CLOCK_MONOTONIC);
    if (now > deadline) {
      const long long since = prog->b_since;
      if (prog->side == 1 && since > 0) {
        end.a_ns = prog->a_ns;
        end.b_ns = now - since;
      }
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      timed_out = true;
      break;
    }
    timespec ts{0, 1000000};
    nanosleep(&ts, nullptr);
  }
  end.side = prog->side;
  end.size = prog->size;
  if (timed_out) {
    end.status = "timeout";
  } else if (WIFSIGNALED(status)) {
    end.status = "crash";
    end.signal = WTERMSIG(status);
  } else {
    end.code = WEXITSTATUS(status);
    if (end.code == 0 && prog->finished) end.status = "ok";
    else if (end.code == 1 && end.side == -1) end.status = "mismatch";
    else if (end.code == 2 && prog->finished) end.status = "noinputs";
    else if (end.code == 86) end.status = "sanitizer";
    else end.status = "crash";  // exited early, or with a code of its own
  }
  return end;
}

inline std::string end_json(const ChildEnd& e) {
  return "\"status\":\"" + e.status + "\",\"side\":\"" +
         (e.side == 0 ? "A" : (e.side == 1 ? "B" : "")) + "\",\"size\":" +
         std::to_string(e.size) + ",\"signal\":" + std::to_string(e.signal) + ",\"code\":" +
         std::to_string(e.code) + ",\"pid\":" + std::to_string(e.pid) + ",\"a_ns\":" +
         std::to_string(e.a_ns) + ",\"b_ns\":" + std::to_string(e.b_ns);
}

// check: every case (profile:seed) at every size, each case in its own child process.
//   sides=A runs only the original (are these inputs valid for it?), sides=AB compares.
//   fork=0 runs in this process (for coverage, whose counters are written at a normal exit).
inline int run_check(Bench& bench, Side& a, Side& b, const Args& args, const detail::Info& info,
                     unsigned long long seed) {
  std::vector<std::size_t> sizes = parse_sizes(args.count("sizes") ? args.at("sizes") : "");
  if (!info.edges.empty() && arg_ll(args, "exact", 0) == 0) sizes = info.edges;
  std::vector<Case> cases = parse_cases(args.count("cases") ? args.at("cases") : "", seed);
  const bool both = !(args.count("sides") && args.at("sides") == "A");
  const long long timeout_ms = arg_ll(args, "case_ms", 10000);
  const long long mem_mb = arg_ll(args, "mem_mb", 0);
  const long long stop_ns = arg_ll(args, "stop_ns", 0);
  const bool probe = arg_ll(args, "probe", 0) != 0;
  const bool times = arg_ll(args, "times", 0) != 0;
  Progress* prog = shared_progress();
  if (arg_ll(args, "fork", 1) == 0) {
    for (const Case& c : cases) {
      prog->recorded = 0;
      int rc = check_case(bench, a, both ? &b : nullptr, c, sizes, info, prog, false, 0, 0,
                          probe, times);
      emit("{\"event\":\"case\"," + case_json(c) + ",\"status\":\"" +
           (rc == 0 ? "ok" : (rc == 1 ? "mismatch" : "noinputs")) + "\",\"recorded\":" +
           std::to_string(prog->recorded) + "}");
    }
    emit("{\"event\":\"done\"}");
    return 0;
  }
  for (const Case& c : cases) {
    // A size at which the original itself fails is reported as invalid input and skipped: the
    // next child resumes after it.
    std::size_t from = 0;
    int checked = 0;
    long long recorded = 0;
    ChildEnd end;
    const long long case_start = now_ns(CLOCK_MONOTONIC);
    for (;;) {
      prog->checked = 0;
      prog->recorded = 0;
      end = in_child(
          [&]() { return check_case(bench, a, both ? &b : nullptr, c, sizes, info, prog, false,
                                    from, stop_ns, probe, times); },
          timeout_ms, prog, mem_mb);
      checked += prog->checked;
      recorded += prog->recorded;
      const bool original_failed = end.side == 0 && (end.status == "crash" ||
                                                     end.status == "sanitizer" ||
                                                     end.status == "timeout");
      if (!original_failed) break;
      emit("{\"event\":\"invalid\"," + case_json(c) + "," + end_json(end) + "}");
      from = static_cast<std::size_t>(prog->index) + 1;
      // A scan stops where the original ran out of time: larger sizes take longer still.
      if (from >= sizes.size() || (stop_ns > 0 && end.status == "timeout")) {
        end.status = checked ? "ok" : "invalid";
        break;
      }
    }
    if (end.status == "ok" && checked == 0) end.status = "invalid";
    const long long case_ms = (now_ns(CLOCK_MONOTONIC) - case_start) / 1000000LL;
    emit("{\"event\":\"case\"," + case_json(c) + "," + end_json(end) + ",\"recorded\":" +
         std::to_string(recorded) + ",\"ms\":" + std::to_string(case_ms) + "}");
    // The first disagreement is the verdict: the cases after it would only add time (a
    // candidate that hangs would wait out the limit on every one of them).
    if (both && end.status != "ok" && end.status != "invalid" && end.status != "noinputs")
      break;
  }
  emit("{\"event\":\"done\"}");
  return 0;
}

// mutants: B is the original built with mutant schemata; each id switches one mutant on (through
// its exported perfpilot_mutant variable) in a child that compares it with A on every case. A
// mismatch, crash or hang kills the mutant; agreement everywhere means it survived.
inline int run_mutants(Bench& bench, Side& a, Side& b, const Args& args,
                       const detail::Info& info, unsigned long long seed) {
  std::vector<std::size_t> sizes = parse_sizes(args.count("sizes") ? args.at("sizes") : "");
  if (!info.edges.empty()) sizes = info.edges;
  std::vector<Case> cases = parse_cases(args.count("cases") ? args.at("cases") : "", seed);
  std::vector<std::size_t> ids = parse_sizes(args.count("ids") ? args.at("ids") : "");
  const long long timeout_ms = arg_ll(args, "case_ms", 2000);
  int* selector = b.handles.empty() ? nullptr
                                    : static_cast<int*>(dlsym(b.handles[0], "perfpilot_mutant"));
  if (selector == nullptr) {
    emit("{\"event\":\"error\",\"message\":\"perfpilot_mutant not found\"}");
    return 0;
  }
  Progress* prog = shared_progress();
  for (std::size_t id : ids) {
    ChildEnd end = in_child(
        [&]() {
          *selector = static_cast<int>(id);
          for (const Case& c : cases) {
            int rc = check_case(bench, a, &b, c, sizes, info, prog, true);
            if (rc == 1) return 1;
            prog->finished = 0;
          }
          prog->finished = 1;
          return 0;
        },
        timeout_ms, prog, arg_ll(args, "mem_mb", 0));
    emit("{\"event\":\"mutant\",\"id\":" + std::to_string(id) + "," + end_json(end) + "}");
  }
  emit("{\"event\":\"done\"}");
  return 0;
}

// Whether B agrees with A at size n on the inputs of case x and its partner y, set up in bx and
// by (never called here, so they stay as set up): the memory probe in scratch, or where the
// bench cannot be overwritten, one call of each side on each input set up afresh. ra: A's
// probe records, computed when empty (once for every copy of B). Emits the mismatch (with
// `after` added to it) and returns false when they differ. a_ns: what A's probe took (set
// with ra), which B's cut-off is measured against.
inline bool agree_at(Bench& scratch, Bench& bx, Bench& by, Side& a, Side& b, std::size_t n,
                     const Case& x, const Case& y, std::vector<Recorder>& ra,
                     const std::string& after, long long& a_ns) {
  std::string head = "{\"event\":\"mismatch\",\"size\":" + std::to_string(n) + after;
  // Say who is about to run, so that a crash can be attributed.
  const std::string begin = "{\"event\":\"begin\",\"size\":" + std::to_string(n) + ",\"side\":\"";
  if (scratch->overwrite_from(*bx)) {
    std::vector<Recorder> rb;
    if (ra.empty()) {
      emit(begin + "A\"}");
      const long long t0 = now_ns(CLOCK_MONOTONIC);
      memory_probe(scratch, bx, by, a, ra);
      a_ns = now_ns(CLOCK_MONOTONIC) - t0;
    }
    emit(begin + "B\"}");
    arm_cutoff(n, a_ns);
    memory_probe(scratch, bx, by, b, rb);
    disarm_cutoff();
    bool memory = false;
    std::string diff = compare_probe(ra, rb, memory);
    if (diff.empty()) return true;
    emit(head + probe_mismatch_json(diff, memory) + "}");
    return false;
  }
  for (const Case* c : {&x, &y}) {
    fresh_inputs(scratch, n, *c);
    emit(begin + "A\"}");
    const long long t0 = now_ns(CLOCK_MONOTONIC);
    call_and_record(scratch, a);
    const long long a_call = now_ns(CLOCK_MONOTONIC) - t0;
    fresh_inputs(scratch, n, *c);
    emit(begin + "B\"}");
    arm_cutoff(n, a_call);
    call_and_record(scratch, b);
    disarm_cutoff();
    std::string diff = compare(a.rec, b.rec);
    if (!diff.empty()) {
      emit(head + ",\"detail\":\"" + json_escape(diff) + "\"}");
      return false;
    }
  }
  return true;
}

inline int run_time(Bench& bench, Side& a, Side& b, const Args& args,
                    const detail::Info& info, const Case& cs, const Case& partner) {
  const long long target = arg_ll(args, "target_ns", 5000000);
  // "pairs" clean pairs are wanted; contended pairs (a call waited for a CPU longer than
  // wait_ppm millionths of its wall time) do not count, up to max_pairs pairs in all.
  const long long pairs = arg_ll(args, "pairs", 30);
  const long long max_pairs = std::max(pairs, arg_ll(args, "max_pairs", pairs * 4));
  const long long wait_ppm = arg_ll(args, "wait_ppm", 20000);
  const long long warmup = arg_ll(args, "warmup", 2);
  const long long budget_ns = arg_ll(args, "budget_ms", 30000) * 1000000LL;
  cutoff().factor = arg_ll(args, "cut_factor", 0);
  cutoff().floor_ns = arg_ll(args, "cut_floor_ns", 0);
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
    if (!setup(bench, n, cs, why)) {
      emit("{\"event\":\"calib-stop\",\"size\":" + std::to_string(n) + ",\"reason\":\"" +
           json_escape(why) + "\"}");
      break;
    }
    // Each side twice, keeping the faster call: one-time costs of a first call (an OpenMP
    // thread pool starting, first page faults) must not stop calibration at a size far too
    // small, where the timing would compare sub-microsecond calls.
    long long ta = -1, tb = -1;
    for (int round = 0; round < 2; ++round) {
      // Say who is about to run, so that a crash can be attributed.
      emit("{\"event\":\"begin\",\"size\":" + std::to_string(n) + ",\"side\":\"A\"}");
      const long long t0 = now_ns(CLOCK_MONOTONIC);
      long long t = timed(bench, a.fn, 1).wall;
      const long long a_step = now_ns(CLOCK_MONOTONIC) - t0;
      ta = ta < 0 ? t : std::min(ta, t);
      emit("{\"event\":\"begin\",\"size\":" + std::to_string(n) + ",\"side\":\"B\"}");
      arm_cutoff(n, a_step);
      t = timed(bench, b.fn, 1).wall;
      disarm_cutoff();
      tb = tb < 0 ? t : std::min(tb, t);
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
    if (!setup(bench, n, cs, why)) {
      emit("{\"event\":\"error\",\"message\":\"cannot build inputs: " + json_escape(why) + "\"}");
      return 0;
    }
    chosen = n;
  }
  n = chosen;
  std::string why;
  if (!setup(bench, n, cs, why)) {
    emit("{\"event\":\"error\",\"message\":\"cannot build inputs: " + json_escape(why) + "\"}");
    return 0;
  }
  // The partner's inputs: the same size and shape, other values. Samples alternate the two.
  Bench other(info.make());
  if (!setup(other, n, partner, why)) {
    emit("{\"event\":\"error\",\"message\":\"cannot build inputs: " + json_escape(why) + "\"}");
    return 0;
  }
  // Validate at the chosen size before any timing: both inputs, one storage.
  Bench scratch(info.make());
  std::vector<Recorder> ra;
  long long a_probe = 0;  // A's probe at n: the cut-off of B's
  if (!agree_at(scratch, bench, other, a, b, n, cs, partner, ra, "", a_probe)) return 0;
  // Timed calls run in scratch, each on a copy of one of the two inputs; a bench that cannot
  // be copied alternates its two objects instead.
  Bench* into = scratch->overwrite_from(*bench) ? &scratch : nullptr;
  a.rec.clear();
  b.rec.clear();
  long long reps = 1;
  if (slow_ns > 0 && slow_ns < target) reps = (target + slow_ns - 1) / slow_ns;
  if (slow_ns <= 0) reps = 1000;
  if (reps > 2) {
    // Calibration called each side twice on one input; a call that uses its input up (a
    // spec without reset()) is cheap the second time, while every timed call gets its input
    // afresh. One timed pair of calls per side says what a repetition really costs.
    const long long per_call = std::max(timed(into, bench, other, a.fn, 2).wall,
                                        timed(into, bench, other, b.fn, 2).wall) / 2;
    if (per_call > 0 && per_call * reps > 2 * target) {
      reps = std::max(2LL, target / per_call);
      slow_ns = per_call;
    }
  }
  // Every sample calls both inputs equally often: the same sequence for both sides, and no
  // side's call ever follows its own call on the same input.
  if (reps % 2) ++reps;
  // reached: whether one call of the slower side took the target time at the chosen size
  // (else each sample repeats the call `reps` times, and the verdict says so).
  emit("{\"event\":\"chosen\",\"size\":" + std::to_string(n) + ",\"reps\":" +
       std::to_string(reps) + ",\"call_ns\":" + std::to_string(slow_ns) + ",\"reached\":" +
       (slow_ns >= target ? "true" : "false") + ",\"copies\":[" +
       std::to_string(a.fns.size()) + "," + std::to_string(b.fns.size()) + "]}");

  // The first copies get the full warm-up (thread pools, caches); every other copy one call,
  // which faults its pages in and binds its symbols.
  // A's last sample, copies and resets included: B's sample is cut off at a multiple of it.
  long long a_sample = 0;
  auto timed_a = [&](void* fn) {
    const long long t0 = now_ns(CLOCK_MONOTONIC);
    Sample s = timed(into, bench, other, fn, reps);
    a_sample = now_ns(CLOCK_MONOTONIC) - t0;
    return s;
  };
  auto timed_b = [&](void* fn) {
    arm_cutoff(n, a_sample);
    Sample s = timed(into, bench, other, fn, reps);
    disarm_cutoff();
    return s;
  };
  for (long long w = 0; w < warmup; ++w) {
    timed_a(a.fns.front());
    timed_b(b.fns.front());
  }
  for (std::size_t c = 1; c < a.fns.size(); ++c) timed_a(a.fns[c]);
  for (std::size_t c = 1; c < b.fns.size(); ++c) timed_b(b.fns[c]);
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
      sa = timed_a(fa);
      sb = timed_b(fb);
    } else {
      sb = timed_b(fb);
      sa = timed_a(fa);
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
  // Compare again after timing, on both inputs and on every copy of the candidate: a function
  // that behaves only while it is validated (a call counter, a static flag), or that answers
  // from memory once it has seen an input, is caught here.
  if (into == nullptr) {
    fresh_inputs(bench, n, cs);
    fresh_inputs(other, n, partner);
  }
  a.fn = a.fns.front();
  ra.clear();
  for (void* fb : b.fns) {
    b.fn = fb;
    if (!agree_at(scratch, bench, other, a, b, n, cs, partner, ra, ",\"after\":\"timing\"",
                  a_probe))
      return 0;
  }
  emit(out);
  return 0;
}

inline int run_count(Bench& bench, Side& a, Side& b, const Args& args,
                     const detail::Info& info, const Case& cs, const Case& partner) {
  std::size_t n = static_cast<std::size_t>(arg_ll(args, "size", 1000));
  Side& s = (args.count("side") && args.at("side") == "B") ? b : a;
  std::string why;
  if (!setup(bench, n, cs, why)) {
    emit("{\"event\":\"error\",\"message\":\"cannot build inputs: " + json_escape(why) + "\"}");
    return 0;
  }
  // The counted calls are those of one timed sample: the case's inputs, then the partner's.
  Bench other(info.make());
  const bool both = setup(other, n, partner, why);
  // Warm-up outside the counted region (thread pools, lazy symbol binding) on inputs of half
  // the size: the counted calls meet inputs never seen, so no memory of an earlier call can
  // shorten them.
  Bench warm(info.make());
  if (setup(warm, n > 1 ? n / 2 : n, cs, why))
    timed(warm, s.fn, 1);
  else
    timed(bench, s.fn, 1);
  bench->reset();
  if (both) other->reset();
  CALLGRIND_START_INSTRUMENTATION;
  for (Bench* in : {&bench, &other}) {
    if (in == &other && !both) break;
    try {
      (*in)->call(s.fn);
    } catch (...) {
    }
  }
  CALLGRIND_STOP_INSTRUMENTATION;
  emit("{\"event\":\"counted\",\"size\":" + std::to_string(n) + "}");
  return 0;
}

inline int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s probe|check|mutants|time|count libA.so[,...] libB.so[,...] [key=value ...]\n",
                 argv[0]);
    return 2;
  }
  std::string mode = argv[1];
  Args args;
  for (int k = 2; k < argc; ++k) {
    std::string kv = argv[k];
    auto eq = kv.find('=');
    if (eq != std::string::npos) args[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  // The channel is opened before any library is loaded, so no code under test sees the key.
  open_channel(static_cast<int>(arg_ll(args, "channel", -1)));
  if (mode == "probe") {
    emit(std::string("{\"event\":\"probe\",\"callgrind\":") +
         (PERFPILOT_HAS_CALLGRIND ? "true" : "false") + "}");
    return 0;
  }
  if (argc < 4) return 2;
  const detail::Info info = detail::registered();
  unsigned long long seed = static_cast<unsigned long long>(arg_ll(args, "seed", 12345));
  const Case one = parse_cases(args.count("case") ? args.at("case") : "", seed).front();
  const Case partner = args.count("partner")
                           ? parse_cases(args.at("partner"), seed).front()
                           : partner_of(one);
  perfpilot::gen::set_constants(args.count("consts") ? args.at("consts") : "");
  Side a, b;
  if (!load(a, argv[2], "A") || !load(b, argv[3], "B")) return 3;
  // Objects built through their public API are built by the original's helpers, for both sides.
  perfpilot::api::table() = reinterpret_cast<perfpilot::api::Table>(
      dlsym(a.handles.front(), "perfpilot_api"));
  Bench bench(info.make());
  if (mode == "check") return run_check(bench, a, b, args, info, seed);
  if (mode == "mutants") return run_mutants(bench, a, b, args, info, seed);
  if (mode == "time") return run_time(bench, a, b, args, info, one, partner);
  if (mode == "count") return run_count(bench, a, b, args, info, one, partner);
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}

}  // namespace driver
}  // namespace perfpilot

int main(int argc, char** argv) { return perfpilot::driver::main(argc, argv); }
