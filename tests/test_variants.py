"""The variants of a builtin candidate (``optimizing/builtin/variants.py``): schedules and chunk
sizes, ``simd``, unrolling and loop orders, generated from the shape of the code; the code each
generator must leave alone; the legality test for loop orders; and a differential check that
builds generated functions with every variant and compares what they print."""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import perfpilot.runner.measure as runner_measure
from perfpilot.code.declarations import VarType
from perfpilot.code.locate import function_by_name
from perfpilot.code.nest_order import Nest, order_blocker, perfect_nest
from perfpilot.code.parse import parse
from perfpilot.code.site import FunctionSite
from perfpilot.code.syntax import (
    walk,
)
from perfpilot.engine.engine import Engine
from perfpilot.engine.present import lens_title, report_markdown
from perfpilot.optimizing.builtin import BuiltinOptimizer
from perfpilot.optimizing.builtin.optimizer import BACKEND
from perfpilot.optimizing.builtin.variants import (
    DEFAULT_BUILD,
    MAX_FAMILY,
    SOURCE_ORDER,
    Build,
    Family,
    Variant,
    build_of,
    candidate_variants,
    family_of,
)
from perfpilot.planning.builtin import BuiltinPlanner
from perfpilot.progress import JobContext
from perfpilot.rules.rewriting import rule_input
from perfpilot.runner.admission import policy_verdict
from perfpilot.runner.measurement_inputs import MeasurementInputs
from perfpilot.runner.toolchain import needs_openmp
from perfpilot.runner.values import Measurement, Verdict
from perfpilot.settings import RunnerSettings, Settings
from perfpilot.strategy.values import Candidate

HAVE_GXX = shutil.which("g++") is not None
SIMD = Build(simd=True)

HEADERS = "#include <cmath>\n#include <cstddef>\n#include <cstdio>\n#include <vector>\n"


def site(code: str, name: str, language: str = "cpp") -> FunctionSite:
    unit = (HEADERS if language == "cpp" else "") + code
    return function_by_name(unit, language, name)


def family(code: str, name: str, parallel: bool, build: Build = DEFAULT_BUILD) -> Family:
    s = site(code, name)
    return family_of(s.text, s, parallel, build)


def labels(f: Family) -> list[str]:
    return [v.label for v in f.variants]


def code_of(f: Family, label: str) -> str:
    return next(v.code for v in f.variants if v.label == label)


# -- schedules and chunk sizes -----------------------------------------------------------

UNEVEN = """
long pairs(const std::vector<long>& a) {
    long total = 0;
    long n = (long)a.size();
    #pragma omp parallel for reduction(+:total) schedule(dynamic, 16)
    for (long i = 0; i < n; ++i)
        for (long j = 0; j < i; ++j) total += a[j] * a[i - j];
    return total;
}
"""


def test_an_uneven_parallel_loop_races_schedules_and_chunk_sizes() -> None:
    f = family(UNEVEN, "pairs", parallel=True)
    assert f.own == "schedule(dynamic, 16)"
    assert labels(f) == ["schedule(static)", "schedule(dynamic, 1)", "schedule(dynamic, 64)",
                         "schedule(guided)"]
    own = site(UNEVEN, "pairs").text
    for v in f.variants:
        # Only the clause differs: the reduction stays.
        assert v.code.replace(v.label, "schedule(dynamic, 16)") == own
    assert len(f.variants) < MAX_FAMILY


def test_a_serial_candidate_gets_no_schedule_variants() -> None:
    serial = re.sub(r"    #pragma omp[^\n]*\n", "", UNEVEN)
    assert not any(label.startswith("schedule") for label in labels(
        family(serial, "pairs", parallel=False)))


# -- simd ----------------------------------------------------------------------------------

DOT = """
double dot(const double* a, const double* b, int n) {
    double t = 0;
    #pragma omp parallel for reduction(+:t)
    for (int i = 0; i < n; ++i) t += a[i] * std::sqrt(b[i]);
    return t;
}
"""

SAXPY = """
void saxpy(float* __restrict y, const float* __restrict x, float a, int n) {
    #pragma omp parallel for
    for (int i = 0; i < n; ++i) {
        float v = a * x[i];
        y[i] = v + y[i];
    }
}
"""


@pytest.mark.parametrize(("code", "name", "pragma"), [
    (DOT, "dot", "#pragma omp parallel for simd reduction(+:t)"),
    (SAXPY, "saxpy", "#pragma omp parallel for simd\n"),
])
def test_a_straight_line_work_sharing_loop_gets_a_simd_variant(code: str, name: str,
                                                                pragma: str) -> None:
    f = family(code, name, parallel=True)
    assert f.own == "the plain rewrite" and labels(f) == ["simd"]
    assert pragma in code_of(f, "simd")
    assert code_of(f, "simd").count("#pragma") == 1


@pytest.mark.parametrize(("code", "name"), [
    # a nested loop
    (UNEVEN.replace(" schedule(dynamic, 16)", ""), "pairs"),
    # a call that is not pure arithmetic
    (DOT.replace("std::sqrt(b[i])", "std::printf(\"%d\", i)"), "dot"),
    # a branch
    (SAXPY.replace("y[i] = v + y[i];", "if (v > 0) y[i] = v;"), "saxpy"),
    # an if clause (simd honours it only in recent OpenMP versions)
    (SAXPY.replace("parallel for\n", "parallel for if(n > 100)\n"), "saxpy"),
    # a clause simd does not keep
    (SAXPY.replace("parallel for\n", "parallel for ordered\n"), "saxpy"),
    # an array-section reduction
    (DOT.replace("reduction(+:t)", "reduction(+:t) reduction(+:h[:4])"), "dot"),
    # already simd
    (DOT.replace("parallel for", "parallel for simd"), "dot"),
])
def test_simd_leaves_other_parallel_loops_alone(code: str, name: str) -> None:
    assert "simd" not in labels(family(code, name, parallel=True))


HISTOGRAM = """
void hist(const int* a, int n, long* h) {
    #pragma omp parallel
    {
        long local[256] = {0};
        #pragma omp for nowait
        for (int i = 0; i < n; ++i) local[a[i] & 255]++;
        #pragma omp critical
        {
            for (int b = 0; b < 256; ++b) h[b] += local[b];
        }
    }
}
"""


def test_a_loop_that_relies_on_per_thread_copies_gets_no_simd() -> None:
    # Each thread's iterations share its own histogram: lanes of one thread would collide.
    assert family(HISTOGRAM, "hist", parallel=True).variants == ()


ISUM = """
long isum(const std::vector<int>& a) {
    long s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * 3;
    return s;
}
"""

SCALE = """
void scale(std::vector<double>& y, const std::vector<double>& x, double a) {
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = a * x[i];
}
"""


def test_a_serial_loop_gets_omp_simd_only_when_the_build_honours_it() -> None:
    with_flag = family(ISUM, "isum", parallel=False, build=SIMD)
    assert "#pragma omp simd reduction(+:s)\n" in code_of(with_flag, "simd")
    # References of one type written and read at the same index: each lane keeps to its own
    # element even when they are one object.
    assert "    #pragma omp simd\n    for" in code_of(
        family(SCALE, "scale", parallel=False, build=SIMD), "simd")
    without = family(ISUM, "isum", parallel=False, build=Build(simd=False))
    assert "simd" not in labels(without)
    assert build_of(("-O2", "-fopenmp-simd"), None).simd
    assert build_of(("-O2", "-fopenmp"), "g++").simd
    assert not build_of(("-O2",), None).simd


@pytest.mark.parametrize(("code", "name"), [
    # a floating sum: simd would regroup the additions
    (ISUM.replace("long isum", "double isum").replace("long s", "double s"), "isum"),
    # pointers that may overlap: lanes could read what another lane writes
    ("void shift(double* a, const double* b, int n) {\n"
     "    for (int i = 0; i < n; ++i) a[i] = b[i] * 2.0;\n}\n", "shift"),
    # a carried dependence
    ("void run(std::vector<int>& a, int n) {\n"
     "    for (int i = 1; i < n; ++i) a[i] = a[i - 1] + 1;\n}\n", "run"),
    # references of one type, one written and one read: maybe one object
    ("void cp(std::vector<int>& a, const std::vector<int>& b, int n) {\n"
     "    for (int i = 0; i + 1 < n; ++i) a[i] = b[i + 1];\n}\n", "cp"),
])
def test_serial_simd_leaves_loops_it_could_change_alone(code: str, name: str) -> None:
    assert "simd" not in labels(family(code, name, parallel=False, build=SIMD))


def test_a_parallel_candidate_never_gets_a_serial_simd_or_unroll_pragma() -> None:
    f = family(DOT, "dot", parallel=True, build=SIMD)
    assert "#pragma omp simd" not in "".join(v.code for v in f.variants)
    assert not any(label.startswith("unroll") for label in labels(f))


# -- unroll --------------------------------------------------------------------------------

def test_the_innermost_straight_line_loop_of_a_serial_candidate_is_unrolled() -> None:
    f = family(SCALE, "scale", parallel=False)
    assert labels(f) == ["unroll 4", "unroll 8"]
    four = code_of(f, "unroll 4")
    assert "    #pragma GCC unroll 4\n    for (std::size_t i = 0;" in four
    assert four.replace("    #pragma GCC unroll 4\n", "") == site(SCALE, "scale").text


def test_a_loop_that_is_a_lone_body_is_braced_with_its_pragma() -> None:
    code = ("void add(std::vector<std::vector<int>>& m, int n) {\n"
            "    for (int i = 0; i < n; ++i)\n"
            "        for (int j = 0; j < n; ++j)\n"
            "            m[i][j] += 1;\n}\n")
    four = code_of(family(code, "add", parallel=False), "unroll 4")
    # braced as the file braces its blocks: at the end of the outer loop's header
    assert "    for (int i = 0; i < n; ++i) {\n        #pragma GCC unroll 4\n" \
        "        for (int j = 0; j < n; ++j)\n            m[i][j] += 1;\n    }\n" in four, four
    assert not parse(four, "cpp").root_node.has_error


@pytest.mark.parametrize(("code", "name"), [
    # not counted
    ("void w(std::vector<int>& a) {\n    std::size_t i = 0;\n"
     "    while (i < a.size()) { a[i] = 0; ++i; }\n}\n", "w"),
    # a call with effects
    ("void p(const std::vector<int>& a) {\n"
     "    for (std::size_t i = 0; i < a.size(); ++i) std::printf(\"%d\", a[i]);\n}\n", "p"),
    # a pragma already binds to the loop
    ("void q(std::vector<int>& a) {\n    #pragma GCC ivdep\n"
     "    for (std::size_t i = 0; i < a.size(); ++i) a[i] = 0;\n}\n", "q"),
    # a jump
    ("int r(const std::vector<int>& a) {\n"
     "    for (std::size_t i = 0; i < a.size(); ++i) { if (a[i] < 0) return 1; }\n"
     "    return 0;\n}\n", "r"),
])
def test_unroll_leaves_other_loops_alone(code: str, name: str) -> None:
    assert not any(label.startswith("unroll") for label in labels(
        family(code, name, parallel=False)))


def test_unroll_is_offered_only_to_compilers_that_read_the_pragma() -> None:
    assert build_of((), "/usr/bin/g++-12").unroll and build_of((), "clang++").unroll
    assert build_of((), "/usr/bin/x86_64-linux-gnu-gcc-12").unroll
    assert build_of((), None).unroll
    assert not build_of((), "/opt/tools/xlc").unroll
    assert family(SCALE, "scale", parallel=False, build=Build(unroll=False)).variants == ()


# -- loop order ----------------------------------------------------------------------------

MATMUL = """
void mm(std::vector<std::vector<double>>& C, const std::vector<std::vector<double>>& A,
        const std::vector<std::vector<double>>& B, int n) {
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            for (int k = 0; k < n; ++k)
                C[i][j] += A[i][k] * B[k][j];
}
"""

FLAT = """
void fm(double* __restrict C, const double* __restrict A, const double* __restrict B, int n) {
    #pragma omp parallel for
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            for (int k = 0; k < n; ++k) {
                C[i * n + j] += A[i * n + k] * B[k * n + j];
            }
        }
    }
}
"""


def headers_of(code: str) -> list[str]:
    return re.findall(r"for \((?:int|long|std::size_t) (\w+) =", code)


def test_a_perfect_nest_races_the_orders_that_walk_memory_better() -> None:
    f = family(MATMUL, "mm", parallel=False)
    assert f.own == "order i-j-k"
    assert labels(f)[:2] == ["order i-k-j", "order k-i-j"]
    ikj = code_of(f, "order i-k-j")
    # References of one type may be one object: the new order runs only when they are not.
    assert "if (&C != &A && &C != &B) {" in ikj
    assert headers_of(ikj) == ["i", "k", "j", "i", "j", "k"]
    assert len(f.variants) <= MAX_FAMILY - 1


def test_a_parallel_nest_keeps_its_parallel_loop_outermost() -> None:
    f = family(FLAT, "fm", parallel=True)
    assert labels(f) == ["order i-k-j"]
    ikj = code_of(f, "order i-k-j")
    assert "#pragma omp parallel for\n    for (int i = 0" in ikj and "if (" not in ikj
    assert headers_of(ikj) == ["i", "k", "j"]


@pytest.mark.parametrize(("code", "name"), [
    # a scalar sum: another order regroups it
    ("double s3(const std::vector<std::vector<std::vector<double>>>& A, int n) {\n"
     "    double s = 0;\n    for (int i = 0; i < n; ++i)\n        for (int j = 0; j < n; ++j)\n"
     "            for (int k = 0; k < n; ++k)\n                s += A[k][j][i];\n"
     "    return s;\n}\n", "s3"),
    # triangular bounds
    (MATMUL.replace("k < n", "k < j"), "mm"),
    # pointers that may overlap, at subscripts no range test bounds (a product of counters)
    (FLAT.replace("__restrict ", "").replace("    #pragma omp parallel for\n", "")
     .replace("B[k * n + j]", "B[k * j]"), "fm"),
    # an imperfect nest
    (MATMUL.replace("for (int k = 0; k < n; ++k)\n                C[i][j] += A[i][k] * B[k][j];",
                    "{ C[i][j] = 0; for (int k = 0; k < n; ++k) C[i][j] += A[i][k] * B[k][j]; }"),
     "mm"),
    # a subscript the body computes
    ("void g(std::vector<std::vector<int>>& m, const std::vector<int>& p, int n) {\n"
     "    for (int i = 0; i < n; ++i)\n        for (int j = 0; j < n; ++j)\n"
     "            for (int k = 0; k < n; ++k)\n                m[p[k]][j] += i;\n}\n", "g"),
])
def test_loop_order_leaves_other_nests_alone(code: str, name: str) -> None:
    assert not any(label.startswith("order") for label in labels(
        family(code, name, parallel=False)))


def nest_of(code: str, name: str) -> tuple[Nest, dict[str, VarType | None]]:
    inp = rule_input(site(code, name), site(code, name).text)
    assert inp is not None
    top = next(n for n in walk(inp.function) if n.type == "for_statement")
    nest = perfect_nest(top, dict(inp.types))
    assert not isinstance(nest, str), nest
    return nest, dict(inp.types)


ROWSUM = """
void rs(std::vector<double>& s, const std::vector<std::vector<std::vector<double>>>& A, int n) {
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            for (int k = 0; k < n; ++k)
                s[i] += A[i][k][j];
}
"""


def test_an_order_must_keep_the_loops_an_element_is_updated_across_in_order() -> None:
    nest, types = nest_of(ROWSUM, "rs")
    # s[i] is updated across j and k: any order keeping j before k keeps its sums.
    assert order_blocker(nest, ("j", "i", "k"), types) == ""
    assert order_blocker(nest, ("j", "k", "i"), types) == ""
    why = order_blocker(nest, ("i", "k", "j"), types)
    assert "s[i]" in why and "'j', 'k'" in why
    mm, mtypes = nest_of(MATMUL, "mm")
    assert all(order_blocker(mm, o, mtypes) == ""
               for o in (("k", "i", "j"), ("j", "k", "i"), ("i", "k", "j")))


def test_a_row_major_subscript_pins_both_its_loops() -> None:
    nest, types = nest_of(FLAT.replace("    #pragma omp parallel for\n", ""), "fm")
    assert order_blocker(nest, ("k", "j", "i"), types) == ""
    # With the inner bound not the row length, rows may overlap: no proof.
    other, otypes = nest_of(FLAT.replace("    #pragma omp parallel for\n", "")
                            .replace("j < n", "j < m").replace("int n)", "int n, int m)"), "fm")
    assert "cannot tell" in order_blocker(other, ("k", "j", "i"), otypes)


# -- the family ----------------------------------------------------------------------------

def test_candidate_variants_label_each_by_what_differs_and_share_a_family() -> None:
    s = site(MATMUL, "mm")
    cand = Candidate(s.text, (), "builtin", notes=("n",), includes=("<vector>",))
    out = candidate_variants(cand, "fam", s)
    assert [c.variant for c in out] == ["order i-j-k", "order i-k-j", "order k-i-j",
                                        "unroll 4", "unroll 8"]
    assert {c.family for c in out} == {"fam"} and out[0].code == cand.code
    assert out[1].notes == ("n", "variant: order i-k-j instead of order i-j-k")
    assert all(c.includes == ("<vector>",) for c in out)
    assert len(out) <= MAX_FAMILY
    # Nothing to vary: the candidate alone, outside any family.
    plain = Candidate("int f(int a) { return a + 1; }", (), "builtin")
    assert candidate_variants(plain, "fam", site("int f(int a) { return a + 1; }\n", "f")) \
        == (plain,)


def test_a_family_keeps_at_most_max_family_candidates_earlier_parameters_first() -> None:
    code = ("void tr(std::vector<std::vector<std::vector<double>>>& C,\n"
            "        const std::vector<std::vector<std::vector<float>>>& A, int n) {\n"
            "    for (int i = 0; i < n; ++i)\n        for (int j = 0; j < n; ++j)\n"
            "            for (int k = 0; k < n; ++k)\n"
            "                C[i][j][k] = A[k][j][i] * 2.0;\n}\n")
    s = site(code, "tr")
    source = Variant(SOURCE_ORDER, s.text.replace("* 2.0", "* 2.0 + 0.0"))
    f = family_of(s.text, s, False, SIMD, source)
    assert len(f.variants) == MAX_FAMILY - 1
    assert [v.label.split(" ")[0] for v in f.variants] == ["order", "order", "original",
                                                           "simd", "unroll"]
    assert f.variants[-1].label == "unroll 4"  # unroll 8 did not fit
    assert f.own == "order i-j-k, loops interchanged"


def test_simd_pragmas_alone_need_no_openmp_runtime_under_fopenmp_simd() -> None:
    simd = "#pragma omp simd reduction(+:s)\nfor (;;) {}"
    assert not needs_openmp(("-O2", "-fopenmp-simd"), simd)
    assert needs_openmp(("-O2",), simd)
    assert needs_openmp(("-fopenmp-simd",), "#pragma omp parallel for\n")


@pytest.mark.skipif(not HAVE_GXX or shutil.which("gcc") is None, reason="needs gcc and g++")
async def test_the_optimizer_races_the_source_order_against_an_interchange() -> None:
    code = ("void colscale(std::vector<std::vector<double>>& a,\n"
            "              const std::vector<std::vector<double>>& b, int n, int m) {\n"
            "    for (int i = 0; i < n; ++i) {\n        for (int j = 0; j < m; ++j) {\n"
            "            a[j][i] = pow(b[j][i], 2) * 2.0 + 1.0;\n        }\n    }\n}\n")
    s = site(code, "colscale")
    plan = await BuiltinPlanner().plan(s, JobContext())
    result = await BuiltinOptimizer().optimize(s, plan, JobContext())
    serial = [c for c in result.candidates if c.family == f"{BACKEND}-1"]
    assert [c.variant for c in serial] == ["loops interchanged", SOURCE_ORDER,
                                           "unroll 4", "unroll 8"]
    source = serial[1]
    assert headers_of(source.code) == ["i", "j"] and "b[j][i] * b[j][i]" in source.code
    assert "loop-interchange" not in {st.rule for st in source.strategies}
    assert "loop-interchange" in {st.rule for st in serial[0].strategies}


async def test_the_outcome_names_the_chosen_order_and_the_runner_up(
        monkeypatch: pytest.MonkeyPatch) -> None:
    s = site(MATMUL, "mm")
    engine = Engine(Settings(runner=RunnerSettings(threads=2, callgrind=False, pairs=30)))
    plan = await engine.plan(s, JobContext())
    cands = (await engine.candidates(s, plan, JobContext())).candidates
    figures = {"order i-j-k": 1.3, "order i-k-j": 2.6}
    by_code = {c.code: figures[c.variant] for c in cands}
    assert set(by_code.values()) == set(figures.values())

    async def measure(_site: FunctionSite, code: str, inputs: MeasurementInputs,
                      *_args: Any, **_kwargs: Any) -> Verdict:
        settings = inputs.settings
        x, w = by_code[code], 0.1
        m = Measurement(x, x - w, x + w, settings.pairs, 0, 2, 1.0, 1.0 / x)
        return Verdict("faster", "measured", speedup=x, ci95=(x - w, x + w), threads=2,
                       serial_speedup=1.0, serial_ci95=(0.99, 1.01), pairs=settings.pairs,
                       measurement=m, serial_measurement=replace(m, threads=1),
                       flags=("-fopenmp",), validation_status="passed")

    monkeypatch.setattr(runner_measure, "measure_candidate", measure)
    outcome = await engine.optimize(s, JobContext())
    assert outcome.chosen is not None and outcome.chosen.candidate.variant == "order i-k-j"
    assert "picked order i-k-j" in outcome.message
    assert "next best order i-j-k (1.30×)" in outcome.message
    assert lens_title(outcome).startswith("⚡ ") and "order" not in lens_title(outcome)
    assert "| order i-j-k |" in report_markdown(outcome)  # nothing there to escape


@pytest.mark.skipif(not HAVE_GXX or shutil.which("gcc") is None, reason="needs gcc and g++")
async def test_the_optimizer_offers_serial_simd_only_under_the_projects_simd_flags() -> None:
    s = site(ISUM, "isum")
    plan = await BuiltinPlanner().plan(s, JobContext())

    def serial(result: list[Candidate]) -> list[str]:
        return [c.variant for c in result if c.family == f"{BACKEND}-1"]

    plain = (await BuiltinOptimizer().optimize(s, plan, JobContext())).candidates
    simd = (await BuiltinOptimizer(flags=("-O2", "-fopenmp-simd")).optimize(
        s, plan, JobContext())).candidates
    assert "simd" not in serial(list(plain)) and "unroll 4" in serial(list(plain))
    assert serial(list(simd))[:2] == ["the plain rewrite", "simd"]
    # The parallel candidate races its simd form whatever the flags.
    assert [c.variant for c in plain if c.family == f"{BACKEND}-0"] == ["the plain rewrite", "simd"]
    none = (await BuiltinOptimizer(variants=False).optimize(s, plan, JobContext())).candidates
    assert all(not c.family and not c.variant for c in none)


# -- differential: every variant prints what the candidate prints --------------------------

MM_TEMPLATE = """
void {name}(std::vector<std::vector<double>>& C, const std::vector<std::vector<double>>& A,
        const std::vector<std::vector<double>>& B, int n) {{
    for ({t} {i} = 0; {i} < n; ++{i})
        for ({t} {j} = 0; {j} < n; ++{j})
            for ({t} {k} = 0; {k} < n; ++{k})
                C[{i}][{j}] += A[{i}][{k}] * B[{k}][{j}];
}}
"""


def _generated(seed: int) -> list[tuple[str, str, bool, str]]:
    """(name, candidate code, parallel, driver) for functions of every shape the variants
    touch, over random names, index types, sizes and data."""
    rnd = random.Random(seed)
    out: list[tuple[str, str, bool, str]] = []
    for n in range(2):
        i, j, k = rnd.sample(["i", "j", "k", "r", "c", "t"], 3)
        ty = rnd.choice(("int", "long"))
        size = rnd.randint(3, 9)
        out.append((f"mm{n}", MM_TEMPLATE.format(name=f"mm{n}", t=ty, i=i, j=j, k=k), False,
                    f"int n = {size}; std::vector<std::vector<double>> C(n, "
                    f"std::vector<double>(n, 0.5)), A = mat(n, {rnd.randint(1, 99)}), "
                    f"B = mat(n, {rnd.randint(1, 99)}); F(C, A, B, n); show(C);"))
        out.append((f"fm{n}", FLAT.replace("fm(", f"fm{n}("), True,
                    f"int n = {size}; std::vector<double> C(n * n, 0.25), A = flat(n, "
                    f"{rnd.randint(1, 99)}), B = flat(n, {rnd.randint(1, 99)}); "
                    f"F(C.data(), A.data(), B.data(), n); show1(C);"))
        out.append((f"rs{n}", ROWSUM.replace("rs(", f"rs{n}("), False,
                    f"int n = {size}; std::vector<double> s(n, 0.0); "
                    f"std::vector<std::vector<std::vector<double>>> A(n, mat(n, "
                    f"{rnd.randint(1, 99)})); for (int q = 0; q < n; ++q) A[q][q][0] += q * 0.3;"
                    f" F(s, A, n); show1(s);"))
        out.append((f"isum{n}", ISUM.replace("isum(", f"isum{n}("), False,
                    f"std::vector<int> a({rnd.randint(0, 40)}); for (std::size_t q = 0; "
                    f"q < a.size(); ++q) a[q] = (int)(q * {rnd.randint(3, 999)} % 97) - 40; "
                    f"std::printf(\"%ld\\n\", F(a));"))
        out.append((f"scale{n}", SCALE.replace("scale(", f"scale{n}("), False,
                    f"std::vector<double> x = flat({rnd.randint(1, 9)}, {rnd.randint(1, 99)}), "
                    f"y(x.size()); F(y, x, 1.0 / 3); show1(y);"))
        # Integer data keep parallel sums exact whatever the grouping.
        out.append((f"pairs{n}", UNEVEN.replace("pairs(", f"pairs{n}("), True,
                    f"std::vector<long> a({rnd.randint(0, 300)}); for (std::size_t q = 0; "
                    f"q < a.size(); ++q) a[q] = (long)(q % 13) - 6; "
                    f"std::printf(\"%ld\\n\", F(a));"))
        out.append((f"saxpy{n}", SAXPY.replace("saxpy(", f"saxpy{n}("), True,
                    f"std::vector<float> y({rnd.randint(0, 50)}, 1.5f), x(y.size(), 0.25f); "
                    f"for (std::size_t q = 0; q < y.size(); ++q) x[q] += (float)q / 7; "
                    f"F(y.data(), x.data(), 3.0f, (int)y.size()); "
                    f"for (float v : y) std::printf(\"%a\\n\", v);"))
    return out


SUPPORT = """
static std::vector<std::vector<double>> mat(int n, int seed) {
    std::vector<std::vector<double>> m(n, std::vector<double>(n));
    for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b) m[a][b] = ((a * 31 + b * 17 + seed) % 101) / 7.0 - 3.1;
    return m;
}
static std::vector<double> flat(int n, int seed) {
    std::vector<double> v(n * n);
    for (int a = 0; a < n * n; ++a) v[a] = ((a * 29 + seed) % 89) / 9.0 - 4.3;
    return v;
}
static void show(const std::vector<std::vector<double>>& m) {
    for (const auto& row : m) for (double v : row) std::printf("%a\\n", v);
}
static void show1(const std::vector<double>& v) { for (double x : v) std::printf("%a\\n", x); }
"""


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_every_variant_computes_what_its_candidate_computes(tmp_path: Path) -> None:
    unit_parts = [HEADERS, SUPPORT]
    drivers: list[str] = []
    raced: set[str] = set()
    for name, code, parallel, driver in _generated(seed=11):
        s = site(code, name)
        f = family_of(s.text, s, parallel, SIMD)
        assert f.variants, name
        raced |= {v.label.split(" ")[0] for v in f.variants}
        # The capability policy admits every pragma a variant adds.
        assert all(policy_verdict(s, v.code, origin="builtin") is None for v in f.variants)
        versions = [s.text, *(v.code for v in f.variants)]
        for n, text in enumerate(versions):
            fn = f"{name}_v{n}"
            unit_parts.append(re.sub(rf"\b{name}\(", f"{fn}(", text, count=1))
            drivers.append(f"{{ std::printf(\"== {name} {n}\\n\"); "
                           + driver.replace("F(", f"{fn}(") + " }")
    # Every kind of variant is among those built.
    assert {"schedule(static)", "simd", "unroll", "order"} <= raced
    src = tmp_path / "variants.cpp"
    src.write_text("\n".join(unit_parts) + "\nint main() {\n" + "\n".join(drivers)
                   + "\nreturn 0;\n}\n")
    exe = tmp_path / "variants"
    built = subprocess.run(["g++", "-std=c++17", "-O2", "-fopenmp", "-o", str(exe), str(src)],
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[:4000]
    ran = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "OMP_NUM_THREADS": "3"})
    assert ran.returncode == 0, ran.stderr
    outputs: dict[str, dict[int, list[str]]] = {}
    current: list[str] = []
    for line in ran.stdout.splitlines():
        if line.startswith("== "):
            _, fn, n = line.split()
            current = outputs.setdefault(fn, {}).setdefault(int(n), [])
        else:
            current.append(line)
    assert outputs
    for fn, by_version in outputs.items():
        first = by_version[0]
        assert first, fn
        assert all(lines == first for lines in by_version.values()), fn
