"""The capability policy on candidates: attacks refused (naming the construct and its line),
ordinary rewrites allowed, every builtin rewrite of the bundled examples allowed."""

from __future__ import annotations

from pathlib import Path

import pytest
import tomllib

from perfpilot.code.locate import function_by_name, list_functions
from perfpilot.code.parse import language_for
from perfpilot.code.site import FunctionSite
from perfpilot.code.splice import missing_includes
from perfpilot.rules.rewriting import ALL_RULES, OPENMP_RULES, rewrite
from perfpilot.runner.capabilities import check_candidate, describe

ROOT = Path(__file__).resolve().parent.parent

SUM = """\
#include <vector>
long sum(const long* a, long n) {
  long s = 0;
  for (long i = 0; i < n; ++i) s += a[i];
  return s;
}
"""

PRINTS = """\
#include <cstdio>
void show(const int* a, int n) {
  for (int i = 0; i < n; ++i) printf("%d\\n", a[i]);
}
"""


def _site(unit: str = SUM, name: str = "sum", language: str = "cpp") -> FunctionSite:
    return function_by_name(unit, language, name)  # type: ignore[arg-type]


def _body(extra: str, head: str = "") -> str:
    return (f"{head}long sum(const long* a, long n) {{\n  long s = 0;\n  {extra}\n"
            "  for (long i = 0; i < n; ++i) s += a[i];\n  return s;\n}\n")


REFUSED = {
    "system": (_body('std::system("id");'), "system", 3),
    "global system": (_body('::system("id");'), "system", 3),
    "popen": (_body('popen("id", "r");'), "popen", 3),
    "exec": (_body('execvp("sh", nullptr);'), "execvp", 3),
    "fork": (_body("fork();"), "fork", 3),
    "exit": (_body("if (n < 0) exit(3);"), "exit", 3),
    "signal": (_body("signal(2, nullptr);"), "signal", 3),
    "fopen": (_body('fopen("x", "w");'), "fopen", 3),
    "unlink": (_body('unlink("x");'), "unlink", 3),
    "ofstream": (_body('std::ofstream o("x");'), "ofstream", 3),
    "filesystem": (_body('std::filesystem::remove("x");'), "filesystem", 3),
    "write syscall": (_body('write(1, "x", 1);'), "write", 3),
    "printf when the original is silent": (_body('printf("%ld", n);'), "printf", 3),
    "socket": (_body("socket(2, 1, 0);"), "socket", 3),
    "getenv": (_body('std::getenv("HOME");'), "getenv", 3),
    "environ": (_body("char** e = environ; (void)e;"), "environ", 3),
    "proc path": (_body('const char* p = "/proc/self/environ"; (void)p;'),
                  '"/proc/self/environ"', 3),
    "dlsym": (_body('dlsym(nullptr, "system");'), "dlsym", 3),
    "syscall": (_body("syscall(39);"), "syscall", 3),
    "asm": (_body('asm("nop");'), "asm", 3),
    "asm label": ('int run(const char*) __asm__("system");\n' + _body('run("id");'),
                  'int run(const char*) __asm__("system");', 1),
    "incbin": ('__asm__(".incbin \\"/etc/hostname\\"");\n' + _body(""), "__asm__", 1),
    "constructor": ("__attribute__((constructor)) static void init() {}\n" + _body(""),
                    "__attribute__((constructor))", 1),
    "section": ('[[gnu::section(".init_array")]] int x = 1;\n' + _body(""), "[[section]]", 1),
    "include absolute": (_body("", "#include </etc/shadow>\n"), "#include </etc/shadow>", 1),
    "include parent": (_body("", '#include "../secret.h"\n'), '#include "../secret.h"', 1),
    "include posix": (_body("", "#include <unistd.h>\n"), "#include <unistd.h>", 1),
    "include macro": (_body("", "#include HEADER\n"), "#include HEADER", 1),
    "define keyword": (_body("", "#define for while\n"), "#define for while", 1),
    "pragma dependency": (_body("", '#pragma GCC dependency "/etc/passwd"\n'),
                          '#pragma GCC dependency "/etc/passwd"', 1),
    "pragma redefine": (_body("", "#pragma redefine_extname run system\n"),
                        "#pragma redefine_extname run system", 1),
    "_Pragma": (_body('_Pragma("GCC poison sum");'), "_Pragma(GCC poison sum)", 3),
    "frame address": (_body("void* f = __builtin_frame_address(1); (void)f;"),
                      "__builtin_frame_address", 3),
    "reserved name": (_body("__libc_system(\"id\");"), "__libc_system", 3),
    "unknown library function": (_body('chmod("x", 0777);'), "chmod", 3),
    "block-scope declaration": (_body('int system(const char*); system("id");'),
                                "int system(const char*);", 3),
    "extern C": ('extern "C" int system(const char*);\n' + _body(""), 'extern "C"', 1),
    "function pointer": (_body('auto f = &system; f("id");'), "system", 3),
    "volatile": (_body("volatile long sink = 0; (void)sink;"), "volatile", 3),
    "static memo": (_body("static long memo = 0; (void)memo;"), "static long memo = 0;", 3),
    "global state": ("long calls = 0;\n" + _body("++calls;"), "long calls = 0;", 1),
    "interposed malloc": ('extern "C" void* malloc(unsigned long) { return 0; }\n' + _body(""),
                          "malloc", 1),
    "clock": (_body("auto t = std::chrono::steady_clock::now(); (void)t;"), "now", 3),
    "digraph": (_body("", "%:define X system\n"), "%:", 1),
    "trigraph": (_body("", "??=define X system\n"), "??=", 1),
    "line splice": (_body('sys\\\ntem("id");'), "\\", 3),
    "file macro": (_body("const char* f = __FILE__; (void)f;"), "__FILE__", 3),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_attacks_are_refused_naming_the_construct_and_line(name: str) -> None:
    code, construct, line = REFUSED[name]
    found = check_candidate(_site(), code)
    assert found, f"{name}: not refused"
    assert any(v.construct == construct and v.line == line for v in found), describe(found, 9)


ALLOWED = {
    # Suffixes and hex digits of numbers are not names.
    "number literals": "long sum(const long* a, long n) {\n  long s = 0x7fL & 0;\n"
                       "  double f = 1.0f + 2e5 + 0x1p3;\n"
                       "  for (long i = 0; i < n; ++i) s += a[i];\n"
                       "  return s + (long)(f * 0);\n}\n",
    "std algorithms": "long sum(const long* a, long n) {\n"
                      "  std::vector<long> v(a, a + n);\n  std::sort(v.begin(), v.end());\n"
                      "  return std::accumulate(v.begin(), v.end(), 0L);\n}\n",
    "openmp": "long sum(const long* a, long n) {\n  long s = 0;\n"
              "#pragma omp parallel for reduction(+:s)\n"
              "  for (long i = 0; i < n; ++i) s += a[i];\n  return s;\n}\n",
    "unroll and builtins": "long sum(const long* a, long n) {\n  long s = 0;\n"
                           "#pragma GCC unroll 4\n  for (long i = 0; i < n; ++i)\n"
                           "    s += __builtin_expect(a[i] != 0, 1) ? a[i] : 0;\n"
                           "  return s;\n}\n",
    "intrinsics": "#include <immintrin.h>\nlong sum(const long* a, long n) {\n"
                  "  __m256i acc = _mm256_setzero_si256();\n  (void)acc;\n  long s = 0;\n"
                  "  for (long i = 0; i < n; ++i) s += a[i];\n  return s;\n}\n",
    "constant table and lambda": "long sum(const long* a, long n) {\n"
                                 "  static const long k[2] = {0, 1};\n"
                                 "  auto add = [&](long x) { return x + k[0]; };\n"
                                 "  long s = 0;\n"
                                 "  for (long i = 0; i < n; ++i) s = add(s) + a[i];\n"
                                 "  return s;\n}\n",
    "own variables named like syscalls": "long sum(const long* a, long n) {\n"
                                         "  long read = 0, time = 0;\n"
                                         "  for (long i = 0; i < n; ++i) read += a[i];\n"
                                         "  return read + time;\n}\n",
    "helper function": "static inline long twice(long x) { return x + x; }\n"
                       "long sum(const long* a, long n) {\n  long s = 0;\n"
                       "  for (long i = 0; i < n; ++i) s += twice(a[i]) / 2;\n  return s;\n}\n",
    "standard header": "#include <unordered_set>\n" + _body(""),
    # <chrono> is a standard header: durations are pure, only its clocks are refused.
    "chrono durations": "#include <chrono>\n"
                        + _body("std::chrono::milliseconds d(n); s += d.count() * 0;"),
    "openmp guard": "#ifdef _OPENMP\n#include <omp.h>\n#endif\n" + _body(""),
    "prefetch hint": "#include <immintrin.h>\n"
                     + _body("_mm_prefetch((const char*)a, _MM_HINT_T0);"),
    # Read as function declarations by the grammar, variables by C++: a cast, or a variable
    # where a parameter type would stand, is an argument.
    "vector sized by a cast": _body("std::vector<long> v(static_cast<std::size_t>(n));"
                                    " (void)v;"),
    "vector sized by a variable": _body("long m = n; std::vector<double> w(m); (void)w;"),
}


@pytest.mark.parametrize("name", sorted(ALLOWED))
def test_ordinary_rewrites_are_allowed(name: str) -> None:
    found = check_candidate(_site(), ALLOWED[name])
    assert not found, describe(found, 9)


def test_a_stream_the_original_writes_to_may_be_kept_but_not_another() -> None:
    site = _site(PRINTS, "show")
    faster = ('void show(const int* a, int n) {\n  for (int i = 0; i < n; ++i) '
              'fprintf(stdout, "%d\\n", a[i]);\n}\n')
    assert not check_candidate(site, faster)
    other = ('void show(const int* a, int n) {\n  for (int i = 0; i < n; ++i) '
             'fprintf(stderr, "%d\\n", a[i]);\n}\n')
    found = check_candidate(site, other)
    assert any(v.construct == "fprintf" for v in found), describe(found)


def test_capabilities_the_original_uses_may_be_kept() -> None:
    unit = ("#include <cstdlib>\nint check(int n) {\n  if (n < 0) exit(2);\n"
            "  return n * 2;\n}\n")
    site = _site(unit, "check")
    assert not check_candidate(site, "int check(int n) {\n  if (n < 0) exit(2);\n"
                                     "  return n + n;\n}\n")


def test_headers_the_candidate_asks_for_are_checked_too() -> None:
    found = check_candidate(_site(), _body(""), ("</etc/shadow>",))
    assert any("/etc/shadow" in v.construct for v in found)
    assert not check_candidate(_site(), _body(""), ("<unordered_map>",))


def _rewrites() -> list[tuple[str, FunctionSite, str, tuple[str, ...]]]:
    files = sorted([*ROOT.glob("examples/*.c*"), *ROOT.glob("examples/tasks/*/*.c*"),
                    *ROOT.glob("examples/planner/**/*.c*")])
    out = []
    for path in files:
        language = language_for(str(path))
        if language is None:
            continue
        for site in list_functions(path.read_text(), language):
            for rules in (ALL_RULES, ALL_RULES - OPENMP_RULES):
                result = rewrite(site, rules)
                if result.changed:
                    out.append((f"{path.relative_to(ROOT)}:{site.name}", site, result.code,
                                missing_includes(site.unit_text, result.includes)))
    return out


def test_every_builtin_rewrite_of_the_examples_passes_the_policy() -> None:
    rewrites = _rewrites()
    assert len(rewrites) > 20
    refused = {where: describe(found) for where, site, code, includes in rewrites
               if (found := check_candidate(site, code, includes))}
    assert not refused


def test_reference_solutions_of_the_tasks_pass_as_whole_units() -> None:
    for task in sorted(ROOT.glob("examples/tasks/*/task.toml")):
        spec = tomllib.loads(task.read_text())
        source = task.parent / spec["source"]
        language = language_for(str(source))
        assert language is not None
        site = function_by_name(source.read_text(), language, spec["function"])
        reference = (task.parent / spec["reference"]).read_text()
        found = check_candidate(site, reference, whole_unit=True)
        assert not found, f"{task.parent.name}: {describe(found)}"


MORE_REFUSED = {
    "cast to a function pointer": (_body("auto f = (int (*)(const char*))a; (void)f;"),
                                   "(*)(const char*)", 3),
    "function pointer variable": (_body("int (*f)(const char*) = nullptr; (void)f;"),
                                  "(*f)(const char*)", 3),
    "library function address": (_body("auto f = &memcpy; (void)f;"), "memcpy", 3),
    "static member": ("struct Memo { static inline long last = 0; };\n" + _body(""),
                      "static inline long last = 0;", 1),
    "constructor with priority": ("__attribute__((constructor(101))) static void i() {}\n"
                                  + _body(""), "__attribute__((constructor))", 1),
    "target clones": ('__attribute__((target_clones("avx2", "default")))\n' + _body(""),
                      "__attribute__((target_clones))", 1),
    "omp clock": (_body("double t = omp_get_wtime(); (void)t;"), "omp_get_wtime", 3),
    "std print": (_body('std::println("{}", n);'), "println", 3),
    "rounding mode": (_body("std::fesetround(0);"), "fesetround", 3),
    "flush to zero": (_body("_MM_SET_FLUSH_ZERO_MODE(0x8000);"), "_MM_SET_FLUSH_ZERO_MODE", 3),
    "locale": (_body('std::setlocale(0, "C");'), "setlocale", 3),
}


def test_a_real_local_function_declaration_is_still_refused() -> None:
    found = check_candidate(_site(), _body("int getpid(void); (void)getpid();"))
    assert found, "a block-scope declaration of a library function must be refused"


@pytest.mark.parametrize("name", sorted(MORE_REFUSED))
def test_more_attacks_are_refused(name: str) -> None:
    code, construct, line = MORE_REFUSED[name]
    found = check_candidate(_site(), code)
    assert any(construct in v.construct and v.line == line for v in found), describe(found, 9)


def test_a_global_the_original_does_not_use_cannot_keep_state() -> None:
    unit = "long cache[64];\n" + SUM
    found = check_candidate(_site(unit), _body("cache[0] = s;"))
    assert any(v.construct == "cache" for v in found), describe(found)
    users = "long total;\nlong sum(const long* a, long n) {\n  total = 0;\n" \
            "  for (long i = 0; i < n; ++i) total += a[i];\n  return total;\n}\n"
    kept = "long sum(const long* a, long n) {\n  long s = 0;\n" \
           "  for (long i = 0; i < n; ++i) s += a[i];\n  total = s;\n  return s;\n}\n"
    assert not check_candidate(_site(users), kept)


def test_the_fast_io_rewrite_of_an_output_only_program_passes() -> None:
    unit = ("#include <iostream>\nint main() {\n  for (int i = 0; i < 10; ++i)\n"
            "    std::cout << i << std::endl;\n  return 0;\n}\n")
    site = _site(unit, "main")
    result = rewrite(site, ALL_RULES)
    assert "std::cin.tie(nullptr)" in result.code
    assert not check_candidate(site, result.code, result.includes)
    reads = result.code.replace("return 0;", "int x; std::cin >> x;\n  return 0;")
    assert any(v.construct == "cin" for v in check_candidate(site, reads))


# -- a declared name excuses a capability only within its scope ------------------------------
SCOPE_REFUSED = {
    "block-scope variable then the library call": (
        _body('{ int system = 0; (void)system; }\n  std::system("id");'), "system", 4),
    "block-scope variable then an unqualified call": (
        _body('{ int system = 0; (void)system; }\n  system("id");'), "system", 4),
    "lambda parameter": (
        _body('auto q = [](const char* system) { return system; };\n  std::system(q("id"));'),
        "system", 4),
    "a variable is never std::": (_body('int getenv = 0; (void)getenv;\n  std::getenv("H");'),
                                  "getenv", 4),
    "a variable is never ::": (_body('int remove = 0; (void)remove;\n  ::remove("x");'),
                               "remove", 4),
    "later in the block than the call": (_body('quick_exit(1);\n  int quick_exit = 0;'),
                                         "quick_exit", 3),
    "parameter of a prototype": (_body('using F = int(int fopen);\n  std::fopen("x", "w");'),
                                 "fopen", 4),
    "unknown function after its name's scope": (
        _body('{ int chmod = 0; (void)chmod; }\n  ::chmod("x", 0777);'), "chmod", 4),
    "dprintf": (_body('{ int dprintf = 0; (void)dprintf; }\n  dprintf(2, "x");'), "dprintf", 4),
    "qualified by a namespace that only re-exports it": (
        "namespace ns { using ::system; }\n"
        + _body('{ int system = 0; (void)system; }\n  ns::system("id");'), "system", 5),
    "a thread of its own": (_body("std::thread([] {}).detach();"), "thread", 3),
    "sleeping": (_body("std::this_thread::sleep_for(std::chrono::seconds(1));"),
                 "this_thread", 3),
}

SCOPE_ALLOWED = {
    "variable used in its own block": _body("{ long time = 2; s += time; }"),
    "loop variable": _body("for (int read = 0; read < 2; ++read) s += read;"),
    "lambda parameter used inside": _body("auto f = [](long system) { return system + 1; };\n"
                                          "  s += f(1);"),
    "condition variable": _body("if (long write = n) s += write;"),
    "label before its goto": _body("goto done;\n  done: s += 0;"),
    "member defined outside its class": (
        "struct Acc { long total = 0; long add(long x); };\n"
        "long Acc::add(long x) { total += x; return total; }\n" + _body("Acc c; s += c.add(1);")),
    "enumerator named like a capability": (
        "enum class Mode { time, read };\n" + _body("s += (long)Mode::time;")),
    "namespace constant used after the namespace": (
        "namespace { const long kBias = 0; }\n" + _body("s += kBias;")),
}


@pytest.mark.parametrize("name", sorted(SCOPE_REFUSED))
def test_a_declared_name_excuses_only_uses_in_its_scope(name: str) -> None:
    code, construct, line = SCOPE_REFUSED[name]
    found = check_candidate(_site(), code)
    assert any(v.construct == construct and v.line == line for v in found), describe(found, 9)


@pytest.mark.parametrize("name", sorted(SCOPE_ALLOWED))
def test_names_in_their_scope_stay_the_candidates_own(name: str) -> None:
    found = check_candidate(_site(), SCOPE_ALLOWED[name])
    assert not found, describe(found, 9)


# -- state that outlives a call --------------------------------------------------------------
STATE_REFUSED = {
    "static const smart pointer": "static const std::unique_ptr<std::vector<long>> memo = "
                                  "std::make_unique<std::vector<long>>(); (void)memo;",
    "static const struct with mutable members": "struct Memo { mutable long n = -1; };\n"
                                                "  static const Memo memo{}; (void)memo;",
    "static const from a parameter": "static const long first = n; (void)first;",
    "static const pointer": "static const long* const seen = a; (void)seen;",
    "static const container": "static const std::vector<long> v{1, 2}; (void)v;",
    "static const string": 'static const std::string s0 = "x"; (void)s0;',
    "thread-local": "thread_local long calls = 0; ++calls;",
}
STATE_ALLOWED = {
    "constant array": "static const long k[4] = {1, 2, 3, 4}; s += k[n & 3];",
    "constexpr std::array": "static constexpr std::array<int, 3> t{1, 2, 3}; s += t[0];",
    "plain struct of numbers": "struct P { int a; double b; };\n"
                               "  static const P p{1, 2.0}; s += p.a;",
    "constants from constants": "static constexpr long K = 4;\n"
                                "  static const long twice = K * 2 + sizeof(long); s += twice;",
    "constexpr auto number": "static constexpr auto limit = 64; s += limit;",
}


@pytest.mark.parametrize("name", sorted(STATE_REFUSED))
def test_statics_that_can_remember_a_call_are_refused(name: str) -> None:
    found = check_candidate(_site(), _body(STATE_REFUSED[name]))
    assert any("keeps state between calls" in v.reason or "mutable static" in v.reason
               for v in found), describe(found, 9)


@pytest.mark.parametrize("name", sorted(STATE_ALLOWED))
def test_constant_tables_may_be_static(name: str) -> None:
    found = check_candidate(_site(), _body(STATE_ALLOWED[name]))
    assert not found, describe(found, 9)


def test_namespace_scope_state_is_refused_even_when_const() -> None:
    found = check_candidate(_site(), "const std::vector<long> table{1, 2};\n"
                                     + _body("s += table[0];"))
    assert any(v.line == 1 and "keeps state between calls" in v.reason for v in found), \
        describe(found, 9)
    members = "struct Memo { static const std::vector<long> last; };\n" + _body("")
    assert any(v.line == 1 for v in check_candidate(_site(), members))


def test_a_static_the_original_keeps_may_be_kept_and_programs_may_keep_any() -> None:
    unit = "long sum(const long* a, long n) {\n  static long calls = 0;\n  ++calls;\n" \
           "  long s = 0;\n  for (long i = 0; i < n; ++i) s += a[i];\n  return s;\n}\n"
    kept = unit.replace("++calls;", "calls += 1;")
    assert not check_candidate(_site(unit), kept)
    program = "#include <cstdio>\nint main() {\n  printf(\"%d\\n\", 1);\n  return 0;\n}\n"
    memo = program.replace("  printf", "  static std::vector<int> seen;\n  (void)seen;\n  printf")
    assert not check_candidate(_site(program, "main"), memo)
