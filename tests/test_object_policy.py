"""The capability policy on compiled code (runner/object_policy.py), with real compiles: what
the candidate's object reaches from the measured entry against what the original's reaches."""

from __future__ import annotations

import asyncio
import functools
import os
from pathlib import Path

import pytest

from object_policy_support import compile_object, described, have_compilers, judge
from perfpilot.code.locate import function_by_name
from perfpilot.progress import JobContext
from perfpilot.runner.capabilities import check_candidate
from perfpilot.runner.entry import entry_source
from perfpilot.runner.object_policy import ObjectViolation, unit_violations
from perfpilot.runner.object_symbols import classify, entity
from perfpilot.runner.values import Tuning
from perfpilot.settings import RunnerSettings

pytestmark = pytest.mark.skipif(not have_compilers(), reason="g++, gcc or binutils missing")

HOSTILE = Path(__file__).parent / "hostile"
SUM = (HOSTILE / "original.cpp").read_text()
ENTRY = entry_source(function_by_name(SUM, "cpp", "sum_array"))
LOOP = "  long s = 0;\n  for (long i = 0; i < n; ++i) s += a[i];\n  return s;\n"


def _sum(extra: str = "", head: str = "", tail: str = "") -> str:
    """A unit whose ``sum_array`` runs ``extra`` before the loop, with the entry appended."""
    return f"{head}long sum_array(const long* a, long n) {{\n{extra}\n{LOOP}}}\n{tail}{ENTRY}"


def _run(original: str, candidate: str, **kw: object) -> tuple[ObjectViolation, ...]:
    return asyncio.run(judge(original, candidate, **kw))  # type: ignore[arg-type]


ORIGINAL = SUM + ENTRY

# Each dodge of tests/hostile/dodges and what the refusal must name.
DODGES = {
    "shadowed_system": ("`system` (process control)",),
    "lambda_system": ("`system` (process control)",),
    "shadowed_fopen_remove": ("`fopen` (files and I/O)", "`remove` (files and I/O)"),
    "shadowed_getenv": ("`getenv` (environment and identity)",),
    "shadowed_quick_exit": ("`quick_exit` (process control)",),
    "shadowed_dprintf": ("`dprintf` (files and I/O)",),
    "runtime_tmp_path": ("`fopen` (files and I/O)",),
    "memo_unique_ptr": ("keeps state between calls (`memo`, a static local)",),
    "memo_mutable_struct": ("keeps state between calls (`memo`, a static local)",),
    "detached_thread": ("`std::thread::", "(threads)"),
    "exit_paths": ("`exit` (process control)", "`_Exit` (process control)"),
}


def _dodge_text(name: str) -> str:
    text = (HOSTILE / "dodges" / f"{name}.cpp").read_text()
    for mark in ("@TAG@", "@MARK@", "@PROJECT@"):
        text = text.replace(mark, "/nonexistent")
    return text


@functools.cache
def _dodge_verdicts() -> dict[str, tuple[ObjectViolation, ...]]:
    """Every dodge and the honest rewrite judged once, compiled side by side."""
    names = [*sorted(DODGES), "honest"]

    async def all_of_them() -> list[tuple[ObjectViolation, ...]]:
        return list(await asyncio.gather(*(judge(ORIGINAL, _dodge_text(n) + ENTRY)
                                           for n in names)))

    return dict(zip(names, asyncio.run(all_of_them()), strict=True))


def test_the_corpus_lists_every_dodge() -> None:
    on_disk = {p.stem for p in (HOSTILE / "dodges").glob("*.cpp")} - {"honest"}
    assert on_disk == set(DODGES)


@pytest.mark.parametrize("name", sorted(DODGES))
def test_every_dodge_is_refused_naming_what_it_reaches(name: str) -> None:
    found = _dodge_verdicts()[name]
    text = described(found)
    for part in DODGES[name]:
        assert part in text, text


def test_the_honest_rewrite_of_the_same_function_passes() -> None:
    assert not _dodge_verdicts()["honest"], described(_dodge_verdicts()["honest"])


def test_only_the_measured_function_counts_not_its_neighbours() -> None:
    logger = ('#include <cstdio>\nvoid log_line(const char* m) {\n'
              '  if (FILE* f = std::fopen("log.txt", "a")) { std::fputs(m, f); std::fclose(f); }\n'
              '}\n')
    original = _sum(head=logger)
    # The unit's logger opens files; the function under test must not start to.
    gains = _sum('  if (FILE* f = std::fopen("x", "w")) std::fclose(f);', head=logger)
    assert "`fopen` (files and I/O)" in described(_run(original, gains))
    # Calling the logger is reaching fopen through the unit's own code: refused too.
    calls = _sum('  log_line("x");', head=logger)
    assert "`fopen` (files and I/O)" in described(_run(original, calls))
    assert not _run(original, _sum("  long unused = 0; (void)unused;", head=logger))


def test_what_the_original_function_imports_may_be_kept() -> None:
    head = "#include <cstdio>\n"
    original = _sum('  if (n < 0) { std::printf("negative\\n"); std::fflush(stdout); }',
                    head="#include <cstdio>\n")
    kept = _sum('  if (n < 0) { std::puts("negative"); std::fflush(stdout); }', head=head)
    assert not _run(original, kept), described(_run(original, kept))
    # The same channel through C++ streams is the same capability...
    cout = _sum('  if (n < 0) std::cout << "negative" << std::endl;',
                head="#include <iostream>\n")
    assert not _run(original, cout), described(_run(original, cout))
    # ...another channel is not.
    cerr = _sum('  if (n < 0) std::cerr << "negative";', head="#include <iostream>\n")
    assert "`std::cerr` (standard error)" in described(_run(original, cerr))


def test_pure_library_work_is_allowed() -> None:
    work = _sum("""\
  std::vector<long> v(a, a + n);
  std::sort(v.begin(), v.end());
  std::unordered_map<long, int> seen;
  for (long x : v) ++seen[x];
  std::string text = std::to_string(n) + "x";
  std::ostringstream out;
  out << text << std::sqrt(double(n));
  if (out.str().empty()) return -1;""", head=("#include <algorithm>\n#include <cmath>\n"
                                                 "#include <sstream>\n#include <string>\n"
                                                 "#include <unordered_map>\n#include <vector>\n"))
    assert not _run(ORIGINAL, work), described(_run(ORIGINAL, work))


def test_openmp_runtime_calls_are_allowed_but_not_its_clock_or_settings() -> None:
    parallel = ("long sum_array(const long* a, long n) {\n  long s = 0;\n"
                "#pragma omp parallel for reduction(+:s)\n"
                "  for (long i = 0; i < n; ++i) s += a[i] + omp_get_thread_num() * 0;\n"
                f"  return s;\n}}\n{ENTRY}")
    head = "#include <omp.h>\n"
    assert not _run(ORIGINAL, head + parallel, openmp=True)
    timed = _sum("  double t = omp_get_wtime(); if (t < 0) return 0;\n"
                 "  omp_set_num_threads(1);", head=head)
    text = described(_run(ORIGINAL, timed, openmp=True))
    assert "`omp_get_wtime` (clocks and scheduling)" in text
    assert "`omp_set_num_threads` (process control)" in text


def test_clocks_and_machine_randomness_are_refused() -> None:
    clock = _sum("  auto t = std::chrono::steady_clock::now();\n"
                 "  if (t.time_since_epoch().count() == 0) return 0;",
                 head="#include <chrono>\n")
    assert "`std::chrono::_V2::steady_clock::now` (clocks" in described(_run(ORIGINAL, clock))
    random = _sum("  std::random_device rd; if (rd() == 0) return 0;",
                  head="#include <random>\n")
    assert "(the machine's random device)" in described(_run(ORIGINAL, random))


def test_state_that_outlives_a_call_is_refused_but_a_constant_table_is_not() -> None:
    table = _sum("  static const long k[4] = {1, 2, 3, 4};\n  if (n < 0) return k[n & 3];\n"
                 "  static constexpr int z = 7; if (n == -1) return z;")
    assert not _run(ORIGINAL, table), described(_run(ORIGINAL, table))
    memo = _sum("  static long last_n = -1, last_s = 0;\n  if (n == last_n) return last_s;\n"
                "  last_n = n;")
    assert "(`last_n`, a static local)" in described(_run(ORIGINAL, memo))
    global_cache = _sum("  if (cache[0] == n) return cache[1];\n  cache[0] = n;",
                        head="namespace { long cache[2]; }\n")
    assert "(`cache`, a global variable)" in described(_run(ORIGINAL, global_cache))
    tls = _sum("  thread_local long seen = 0;\n  if (seen++ > 3) return 0;")
    assert "a thread-local variable" in described(_run(ORIGINAL, tls))


def test_a_table_the_compiler_computes_is_a_constant_table() -> None:
    # constexpr tables built by a constexpr function, at namespace scope and as a static local:
    # models write both; neither keeps state nor runs code when the library loads.
    head = ("#include <array>\nconstexpr std::array<long, 8> make_table() {\n"
            "  std::array<long, 8> t{};\n  for (int i = 0; i < 8; ++i) t[i] = i * i;\n"
            "  return t;\n}\nconstexpr std::array<long, 8> kSquares = make_table();\n")
    table = _sum("  static constexpr std::array<long, 8> local = make_table();\n"
                 "  if (n < 0) return kSquares[n & 7] + local[n & 7];", head=head)
    assert not _run(ORIGINAL, table), described(_run(ORIGINAL, table))
    assert not check_candidate(function_by_name(SUM, "cpp", "sum_array"), head + _sum(
        "  static constexpr std::array<long, 8> local = make_table();\n"
        "  if (n < 0) return kSquares[n & 7] + local[n & 7];").replace(ENTRY, ""),
        whole_unit=True)


def test_state_the_original_function_keeps_may_be_kept_and_programs_may_keep_any() -> None:
    counted = _sum("  static long calls = 0; ++calls;")
    assert not _run(counted, _sum("  static long calls = 0; calls += 1;"))
    program = "#include <cstdio>\nint main() {\n  long x = 0;\n  std::scanf(\"%ld\", &x);\n" \
              "  std::printf(\"%ld\\n\", x * 2);\n  return 0;\n}\n"
    memo = program.replace("  long x = 0;\n", "  static long calls = 0; ++calls;\n  long x = 0;\n")
    assert not _run(program, memo, entry="main", state=False)
    assert _run(program, memo, entry="main")  # the same, judged as a function: refused


def test_a_c_static_local_is_state_too() -> None:
    original = "long total(const long* a, long n) {\n  long s = 0;\n" \
               "  for (long i = 0; i < n; ++i) s += a[i];\n  return s;\n}\n" \
               "void* perfpilot_entry(void) { return (void*)&total; }\n"
    memo = original.replace("  long s = 0;\n", "  static long last = -1;\n"
                            "  if (n == last) return 0;\n  last = n;\n  long s = 0;\n")
    assert "(`last`, a static local)" in described(_run(original, memo, language="c"))


def test_load_time_code_and_custom_sections_are_refused() -> None:
    ctor = _sum("  if (n < 0) return primed;", head="static long primed;\n"
                         "__attribute__((constructor)) static void prime() { primed = 1; }\n")
    assert "runs when the library loads (`prime()`)" in described(_run(ORIGINAL, ctor))
    global_init = _sum("  if (n < 0) return table[0];",
                       head="#include <vector>\nstatic const std::vector<long> table(8, 1);\n")
    assert "runs when the library loads" in described(_run(ORIGINAL, global_init))
    section = _sum("  if (n < 0) return helper(n);",
                   head='__attribute__((section("pp_own"), noinline)) static long '
                        "helper(long x) { return x + 1; }\n")
    assert "the section `pp_own`" in described(_run(ORIGINAL, section))
    # What <iostream> adds at load time (the standard streams' initialiser) is not a refusal.
    assert not _run(ORIGINAL, _sum("", head="#include <iostream>\n"))


def test_an_instruction_that_enters_the_kernel_is_refused() -> None:
    raw = _sum('  if (n == -7) { long r; __asm__ volatile("syscall" : "=a"(r) : "a"(39L) '
               ': "rcx", "r11", "memory"); return r; }')
    if os.uname().machine not in ("x86_64", "amd64"):
        pytest.skip("x86-64 assembly")
    assert "enters the kernel directly" in described(_run(ORIGINAL, raw))


def test_without_the_entry_every_function_counts() -> None:
    bare = SUM
    adds = bare.replace("    long s = 0;", '    if (n < -5) std::system("id");\n    long s = 0;')
    found = _run(bare, "#include <cstdlib>\n" + adds)
    assert "`system` (process control)" in described(found)


def test_whole_builds_are_compared_on_the_unit_imports(tmp_path: Path) -> None:
    async def both() -> tuple[ObjectViolation, ...]:
        a, b = await asyncio.gather(compile_object(ORIGINAL),
                                    compile_object(_sum('  if (n < -3) std::system("id");',
                                                        head="#include <cstdlib>\n")))
        libs = []
        for obj, name in ((a, "a.so"), (b, "b.so")):
            proc = await asyncio.create_subprocess_exec("g++", "-shared", str(obj), "-o",
                                                        str(tmp_path / name))
            assert await proc.wait() == 0
            libs.append(tmp_path / name)
        return await unit_violations(libs[0], libs[1])

    assert "`system` (process control)" in described(asyncio.run(both()))


def test_sanitized_builds_of_pure_work_import_nothing_refused(tmp_path: Path) -> None:
    from perfpilot.runner.verify import SAN_FLAGS

    work = _sum("""\
  std::vector<long> v(a, a + n);
  std::sort(v.begin(), v.end());
  std::unordered_map<long, int> seen;
  for (long x : v) ++seen[x];
  std::ostringstream out;
  out << std::to_string(n) << std::sqrt(double(n));
  if (out.str().empty()) return -1;""", head=("#include <algorithm>\n#include <cmath>\n"
                                                 "#include <sstream>\n#include <string>\n"
                                                 "#include <unordered_map>\n#include <vector>\n"))

    async def both() -> tuple[ObjectViolation, ...]:
        libs = []
        for name, unit in (("a", ORIGINAL), ("b", work)):
            (tmp_path / f"{name}.cpp").write_text(unit)
            proc = await asyncio.create_subprocess_exec(
                "g++", "-O2", "-std=c++17", *SAN_FLAGS, "-fPIC", "-shared",
                str(tmp_path / f"{name}.cpp"), "-o", str(tmp_path / f"{name}.so"))
            assert await proc.wait() == 0
            libs.append(tmp_path / f"{name}.so")
        return await unit_violations(libs[0], libs[1])

    found = asyncio.run(both())
    assert not found, described(found)


@pytest.mark.parametrize(("mangled", "demangled", "verdict", "shown"), [
    ("memcpy", "memcpy", "pure", "memcpy"),
    ("__memcpy_chk", "__memcpy_chk", "pure", "memcpy"),
    ("__printf_chk", "__printf_chk", "family", "printf"),
    ("__isoc99_sscanf", "__isoc99_sscanf", "pure", "sscanf"),
    ("_ZGVdN4v_sin", "_ZGVdN4v_sin", "pure", "_ZGVdN4v_sin"),
    ("GOMP_parallel", "GOMP_parallel", "pure", "GOMP_parallel"),
    ("system", "system", "denied", "system"),
    ("chmod", "chmod", "denied", "chmod"),
    ("__asan_report_load8", "__asan_report_load8", "pure", "__asan_report_load8"),
    ("__sanitizer_set_report_path", "__sanitizer_set_report_path", "denied",
     "__sanitizer_set_report_path"),
    ("_Znwm", "operator new(unsigned long)", "pure", "operator new"),
    ("_ZSt16__ostream_insertIcSt11char_traitsIcEERSt13basic_ostreamIT_T0_ES6_PKS3_l",
     "std::basic_ostream<char, std::char_traits<char> >& std::__ostream_insert<char, "
     "std::char_traits<char> >(std::basic_ostream<char, std::char_traits<char> >&, char "
     "const*, long)", "pure", "std::__ostream_insert"),
    ("_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_PKc",
     "std::basic_ostream<char, std::char_traits<char> >& std::operator<< "
     "<std::char_traits<char> >(std::basic_ostream<char, std::char_traits<char> >&, char "
     "const*)", "pure", "std::operator<<"),
    ("_ZNKSt9basic_iosIcSt11char_traitsIcEEcvbEv",
     "std::basic_ios<char, std::char_traits<char> >::operator bool() const", "pure",
     "std::basic_ios::operator (conversion)"),
    ("_ZSt4cout", "std::cout", "family", "std::cout"),
    ("_ZNSt6chrono3_V212steady_clock3nowEv", "std::chrono::_V2::steady_clock::now()",
     "denied", "std::chrono::_V2::steady_clock::now"),
    ("_ZNSt10filesystem7__cxx114pathC1ERKS1_",
     "std::filesystem::__cxx11::path::path(std::filesystem::__cxx11::path const&)", "denied",
     "std::filesystem::__cxx11::path::path"),
    ("_ZTINSt6thread6_StateE", "typeinfo for std::thread::_State", "family",
     "typeinfo for std::thread::_State"),
    ("_ZTIi", "typeinfo for int", "pure", "typeinfo for int"),
    ("_ZNSt6localeC1EPKc", "std::locale::locale(char const*)", "denied",
     "std::locale::locale"),
    ("_ZNSt6locale7classicEv", "std::locale::classic()", "pure", "std::locale::classic"),
    ("_ZN12_GLOBAL__N_16helperEi", "(anonymous namespace)::helper(int)", "denied",
     "(anonymous namespace)::helper"),
])
def test_symbols_are_judged_by_the_entity_they_name(mangled: str, demangled: str,
                                                    verdict: str, shown: str) -> None:
    kind, name = classify(mangled, demangled)
    assert (kind.verdict, name) == (verdict, shown)


def test_the_entity_of_a_template_function_drops_its_return_type() -> None:
    assert entity("void std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>"
                  "(__gnu_cxx::__normal_iterator<int*, std::vector<int> >, int const&)") == \
        ("", "std::vector::_M_realloc_insert")
    assert entity("guard variable for sum(long const*, long)::memo") == \
        ("guard variable for", "sum(long const*, long)::memo")


# -- end to end: the runner refuses before anything of the candidate runs ------------------
TUNING = Tuning(target_sample_s=0.0005, edge_sizes=(0, 1, 7, 33), budget_s=3.0,
                noisy_retries=0, mutants=False, coverage=False, sanitizers=False)
SETTINGS = RunnerSettings(pairs=6, callgrind=False, run_timeout_s=20.0, build_timeout_s=60.0)


def _no_syntax_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The syntax policy off, the object policy on: what the compiled code alone shows."""
    from perfpilot.runner import measure

    monkeypatch.setattr(measure, "policy_verdict", lambda *a, **k: None)


async def test_the_runner_refuses_a_compiled_candidate_before_running_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from perfpilot.runner.measure import verify_and_measure

    _no_syntax_policy(monkeypatch)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    mark = tmp_path / "ran"
    site = function_by_name(SUM, "cpp", "sum_array")
    code = _dodge_text("shadowed_system").replace("/nonexistent/system", str(mark))
    verdict = await verify_and_measure(site, code, SETTINGS, JobContext(), tuning=TUNING,
                                       origin="builtin")
    assert verdict.verdict == "rejected", verdict.message
    assert verdict.message.startswith("Rejected by the capability policy before it ran")
    assert "`system` (process control)" in verdict.message
    assert any("`system`" in n for n in verdict.notes)
    assert not mark.exists()


async def test_a_whole_program_is_judged_from_main(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from perfpilot.runner.measure import verify_and_measure

    _no_syntax_policy(monkeypatch)
    program = "#include <cstdio>\nint main() {\n  long x = 0;\n  std::scanf(\"%ld\", &x);\n" \
              "  std::printf(\"%ld\\n\", x * 2);\n  return 0;\n}\n"
    source = tmp_path / "prog.cpp"
    source.write_text(program)
    (tmp_path / "prog.in").write_text("21\n")
    mark = tmp_path / "ran"
    site = function_by_name(program, "cpp", "main", uri=source.as_uri())
    hostile = program.replace("  return 0;", "  { int system = 0; (void)system; }\n"
                              f'  std::system("touch {mark}");\n  return 0;')
    verdict = await verify_and_measure(site, hostile.replace("#include <cstdio>",
                                                             "#include <cstdio>\n"
                                                             "#include <cstdlib>"),
                                       SETTINGS, JobContext(), tuning=TUNING,
                                       source_path=source, origin="builtin")
    assert verdict.verdict == "rejected", verdict.message
    assert "`system` (process control)" in verdict.message
    assert not mark.exists()


def test_the_units_own_initialiser_may_stay_but_not_grow() -> None:
    head = "#include <vector>\nstatic std::vector<long> table(8, 1);\n"
    original = _sum("  if (n < 0) return table[0];", head=head)
    assert not _run(original, _sum("  if (n < -1) return table[1];", head=head))
    grown = head.replace("(8, 1);", "(8, 1);\nstatic std::vector<long> more(4, 2);\n")
    found = _run(original, _sum("  if (n < -1) return more[1];", head=grown))
    assert "sets `more` when the library loads" in described(found)
