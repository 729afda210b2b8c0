// PerfPilot whole-program launcher: times two programs on the same stdin files, alternating
// A and B in ABBA order, from inside the sandbox (so the sandbox's own start-up is not timed).
//   launcher progA progB pairs=N input1 [input2 ...]
// One sample is one run of a program over every input in turn. Prints one JSON line:
//   {"event":"timing","pairs":[[a_ns,b_ns,a_wait_ns,b_wait_ns,a_cpu_ns,b_cpu_ns],...]}
// or {"event":"failed","side":"A","input":"x.in","status":N} when a run exits abnormally.
#pragma once

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace perfpilot {
namespace launcher {

struct Run {
  long long wall = 0, cpu = 0, wait = 0;
  int status = 0;
};

inline long long mono_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

// Run-queue wait of a finished child that has not been reaped yet.
inline long long child_wait_ns(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/schedstat", static_cast<int>(pid));
  FILE* f = std::fopen(path, "r");
  if (f == nullptr) return 0;
  unsigned long long run = 0, wait = 0;
  int got = std::fscanf(f, "%llu %llu", &run, &wait);
  std::fclose(f);
  return got == 2 ? static_cast<long long>(wait) : 0;
}

inline Run run_once(const char* prog, const char* input) {
  Run r;
  long long t0 = mono_ns();
  pid_t pid = fork();
  if (pid == 0) {
    int in = open(input, O_RDONLY);
    int null = open("/dev/null", O_WRONLY);
    if (in >= 0) dup2(in, 0);
    if (null >= 0) {
      dup2(null, 1);
      dup2(null, 2);
    }
    execl(prog, prog, static_cast<char*>(nullptr));
    _exit(127);
  }
  if (pid < 0) {
    r.status = -1;
    return r;
  }
  siginfo_t info{};
  waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT);
  long long t1 = mono_ns();
  r.wait = child_wait_ns(pid);
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  r.wall = t1 - t0;
  r.cpu = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000000000LL +
          (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1000LL;
  r.status = status;
  return r;
}

inline bool sample(const char* prog, const char* side, const std::vector<const char*>& inputs,
                   Run& total) {
  total = Run{};
  for (const char* in : inputs) {
    Run r = run_once(prog, in);
    if (r.status != 0) {
      std::printf("{\"event\":\"failed\",\"side\":\"%s\",\"input\":\"%s\",\"status\":%d}\n", side,
                  in, r.status);
      return false;
    }
    total.wall += r.wall;
    total.cpu += r.cpu;
    total.wait += r.wait;
  }
  return true;
}

inline int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s progA progB pairs=N inputs...\n", argv[0]);
    return 2;
  }
  long pairs = 10;
  std::vector<const char*> inputs;
  for (int k = 3; k < argc; ++k) {
    if (std::strncmp(argv[k], "pairs=", 6) == 0) {
      pairs = std::strtol(argv[k] + 6, nullptr, 10);
    } else {
      inputs.push_back(argv[k]);
    }
  }
  if (inputs.empty()) inputs.push_back("/dev/null");
  Run a, b;
  // Warm-up: page cache and dynamic loader for both programs.
  if (!sample(argv[1], "A", inputs, a) || !sample(argv[2], "B", inputs, b)) return 0;
  std::string out = "{\"event\":\"timing\",\"size\":0,\"reps\":1,\"pairs\":[";
  for (long p = 0; p < pairs; ++p) {
    bool ok = p % 2 == 0 ? (sample(argv[1], "A", inputs, a) && sample(argv[2], "B", inputs, b))
                         : (sample(argv[2], "B", inputs, b) && sample(argv[1], "A", inputs, a));
    if (!ok) return 0;
    if (p) out += ",";
    out += "[" + std::to_string(a.wall) + "," + std::to_string(b.wall) + "," +
           std::to_string(a.wait) + "," + std::to_string(b.wait) + "," + std::to_string(a.cpu) +
           "," + std::to_string(b.cpu) + "]";
  }
  out += "]}";
  std::puts(out.c_str());
  return 0;
}

}  // namespace launcher
}  // namespace perfpilot

int main(int argc, char** argv) { return perfpilot::launcher::main(argc, argv); }
