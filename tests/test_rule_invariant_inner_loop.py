"""invariant-inner-loop: a reduction loop nested in another loop that computes the same value on
every outer iteration runs once before it (O(n^2) to O(n)), over generated variants (types,
names, reductions, loop forms); inner loops that read what the outer loop changes stay."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from differential_support import HAVE_GXX, Variant, compare
from perfpilot.code.locate import function_by_name
from perfpilot.optimizing.builtin import rewrite
from perfpilot.planning.builtin import BuiltinPlanner, analyze
from perfpilot.progress import JobContext

RULES = frozenset({"invariant-inner-loop"})

_INNER = (
    "for (std::size_t {j} = 0; {j} < {x}.size(); ++{j}) {acc} += {x}[{j}];",
    "for (int {j} = 0; {j} < (int){x}.size(); {j}++) {{ {acc} += {x}[{j}] * {x}[{j}]; }}",
    "for (auto {e} : {x}) {acc} += {e};",
    "for (const auto& {e} : {x}) {{ if ({e} > 0) {acc} += {e}; }}",
)
_OUTER = (
    "for (std::size_t {i} = 0; {i} < {x}.size(); ++{i}) {{",
    "for (int {i} = 0; {i} < (int){x}.size(); {i}++) {{",
)
_USE = ("{out}[{i}] = {x}[{i}] - {acc} / (double){x}.size();",
        "{out}[{i}] = {acc} > {x}[{i}] ? 1 : 0;",
        "{out}[{i}] = {x}[{i}] * 2 + {acc};")


def _variants(count: int, seed: int) -> list[Variant]:
    rnd = random.Random(seed)
    out: list[Variant] = []
    for n in range(count):
        t = rnd.choice(("double", "long", "int"))
        x, acc, i, j, e, o = rnd.choice(("x", "data")), rnd.choice(("sum", "total", "s")), \
            rnd.choice(("i", "r")), rnd.choice(("j", "c")), rnd.choice(("v", "el")), \
            rnd.choice(("out", "res"))
        inner = rnd.choice(_INNER).format(j=j, x=x, acc=acc, e=e)
        head = rnd.choice(_OUTER).format(i=i, x=x)
        use = rnd.choice(_USE).format(out=o, i=i, x=x, acc=acc)
        name = f"center{n}"
        code = (f"std::vector<double> {name}(const std::vector<{t}>& {x}) {{\n"
                f"    std::vector<double> {o}({x}.size());\n    {head}\n"
                f"        {t} {acc} = 0;\n        {inner}\n        {use}\n    }}\n"
                f"    return {o};\n}}\n")
        driver = (f"for (int m : {{0, 1, 7}}) {{ std::vector<{t}> in; for (int q = 0; q < m; "
                  f"++q) in.push_back(({t})(q * 3 - 5)); for (double d : {name}(in)) "
                  f"std::printf(\"%.17g\\n\", d); }}")
        out.append(Variant(name, code, driver))
    return out


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_generated_variants_keep_results(tmp_path: Path) -> None:
    variants = _variants(30, seed=5)
    results = compare(variants, RULES, tmp_path)
    for v in variants:
        res = results[v.name]
        assert res.rules >= RULES, (v.code, res.notes)
        assert "O(n)" in res.applied[0].explanation


def _site(code: str, name: str = "f"):  # type: ignore[no-untyped-def]
    return function_by_name("#include <vector>\n" + code, "cpp", name)


def test_it_is_planned_first() -> None:
    code = ("std::vector<double> f(const std::vector<double>& x) { std::vector<double> out;"
            " for (std::size_t i = 0; i < x.size(); ++i) { double s = 0; for (double v : x) "
            "s += v; out.push_back(x[i] / s); } return out; }")
    found = analyze(_site(code))
    assert found and found[0].rule == "invariant-inner-loop", [f.rule for f in found]


@pytest.mark.parametrize("code", [
    # reads the outer counter
    "void f(const std::vector<double>& x, std::vector<double>& out) { for (std::size_t i = 0; "
    "i < x.size(); ++i) { double s = 0; for (std::size_t j = 0; j < i; ++j) s += x[j]; "
    "out[i] = s; } }",
    # reads what the outer loop writes
    "void f(std::vector<double>& x) { for (std::size_t i = 0; i < x.size(); ++i) { "
    "double s = 0; for (double v : x) s += v; x[i] = s; } }",
    # writes through a pointer that may point into what it reads
    "void f(const double* x, double* y, int n) { for (int i = 0; i < n; ++i) { double s = 0;"
    " for (int j = 0; j < n; ++j) s += x[j]; y[i] = s; } }",
    # the accumulator is changed again after the outer loop used it
    "double f(const std::vector<double>& x) { double t = 0; for (std::size_t i = 0; "
    "i < x.size(); ++i) { double s = 0; for (double v : x) s += v; t += s; s /= 2; t += s; }"
    " return t; }",
    # a call that may have effects, or output
    "double g(double); double f(const std::vector<double>& x) { double t = 0; for (int i = 0;"
    " i < 3; ++i) { double s = 0; for (double v : x) s += g(v); t += s; } return t; }",
    "double f(const std::vector<double>& x) { double t = 0; for (int i = 0; i < 3; ++i) { "
    "double s = 0; for (double v : x) { s += v; printf(\"%f\", v); } t += s; } return t; }",
    # not a reduction
    "double f(const std::vector<double>& x) { double t = 0; for (int i = 0; i < 3; ++i) { "
    "double s = 0; for (double v : x) s = v; t += s; } return t; }",
    # an inner loop that stops early
    "double f(const std::vector<double>& x) { double t = 0; for (int i = 0; i < 3; ++i) { "
    "double s = 0; for (double v : x) { if (v < 0) break; s += v; } t += s; } return t; }",
])
def test_left_alone(code: str) -> None:
    res = rewrite(_site(code), RULES)
    assert not res.changed, res.code
    assert "invariant-inner-loop" not in {f.rule for f in analyze(_site(code))}


# --- blocks: the accumulators, their loops and the statements that finish them ---------------

_T = ("double", "long", "int")


def _fold(kind: str, acc: str, elem: str, t: str) -> tuple[str, str]:
    """(initial value, loop body statement) of one accumulator."""
    if kind == "+":
        return "0", f"{acc} += {elem};"
    if kind == "*":
        return "1", (f"{acc} *= 1.0 + {elem} / 64.0;" if t == "double" else
                     f"{acc} *= ({elem} % 3 == 0 ? 2 : 1);")
    if kind == "min":
        return "1000000", f"{acc} = std::min({acc}, ({t}){elem});"
    if kind == "max":
        return "-1000000", f"{acc} = std::max(({t}){elem}, {acc});"
    return "-1000000", f"if ({elem} > {acc}) {acc} = {elem};"


def _post(t: str, acc: str, n: str, rnd: random.Random) -> str:
    """A statement finishing ``acc`` from itself and invariant values only."""
    if t == "double":
        return rnd.choice((f"{acc} /= {n};", f"{acc} *= 0.5;",
                           f"{acc} = std::sqrt(std::fabs({acc}));", f"{acc} = {acc} / 3 + 1;"))
    return rnd.choice((f"{acc} *= 3;", f"{acc} -= 1;", f"{acc} /= 2;",
                       f"{acc} = std::max({acc}, ({t})0);"))


def _block_variants(count: int, seed: int) -> list[Variant]:
    rnd = random.Random(seed)
    out: list[Variant] = []
    for n in range(count):
        t = rnd.choice(_T)
        pointer = rnd.random() < 0.4
        x, i, j = rnd.choice(("x", "v", "vals")), rnd.choice(("i", "r")), rnd.choice(("j", "c"))
        size = "n" if pointer else f"{x}.size()"
        params = f"const {t}* {x}, int n" if pointer else f"const std::vector<{t}>& {x}"
        accs = rnd.sample(("s", "acc", "mean", "hi", "q"), rnd.choice((1, 1, 2, 3)))
        kinds = [rnd.choice(("+", "+", "*", "min", "max", "if-max")) for _ in accs]
        elem = f"{x}[{j}]"
        decls, body = [], []
        for acc, kind in zip(accs, kinds, strict=True):
            init, stmt = _fold(kind, acc, elem, t)
            decls.append(f"{acc} = {init}")
            body.append(stmt)
        head_j = f"for (int {j} = 0; {j} < (int){size}; ++{j})" if rnd.random() < 0.5 or \
            pointer else f"for (std::size_t {j} = 0; {j} < {size}; {j}++)"
        lines = ([f"{t} {', '.join(decls)};"] if rnd.random() < 0.5 else
                 [f"{t} {d};" for d in decls])
        lines.append(f"{head_j} {{ {' '.join(body)} }}")
        lines += [_post(t, a, size, rnd) for a in accs if rnd.random() < 0.7]
        combined = " + ".join(f"(double){a}" for a in accs)
        if t == "double" and rnd.random() < 0.5:  # a second pass reading the first's result
            lines.append("double dev = 0;")
            lines.append(f"{head_j} dev += ({elem} - {accs[0]}) * ({elem} - {accs[0]});")
            lines.append("double sd = std::sqrt(dev);")
            combined += " + sd"
        use = rnd.choice((f"out[{i}] = ({x}[{i}] - ({combined})) * 2;",
                          f"out[{i}] = {x}[{i}] > ({combined}) ? 1.0 : -1.0;"))
        head_i = f"for (int {i} = 0; {i} < (int){size}; ++{i})" if pointer else \
            f"for (std::size_t {i} = 0; {i} < {size}; ++{i})"
        name = f"block{n}"
        inner = "\n".join(f"        {ln}" for ln in lines)
        call = f"{name}(in.data(), (int)in.size()" if pointer else f"{name}(in"
        if pointer and rnd.random() < 0.5:  # results through a restrict pointer
            code = (f"void {name}({params}, double* __restrict out) {{\n    {head_i} {{\n"
                    f"{inner}\n        {use}\n    }}\n}}\n")
            call = f"std::vector<double> o(in.size()); {call}, o.data()); for (double d : o)"
        else:
            code = (f"std::vector<double> {name}({params}) {{\n"
                    f"    std::vector<double> out({size});\n    {head_i} {{\n{inner}\n"
                    f"        {use}\n    }}\n    return out;\n}}\n")
            call = f"for (double d : {call}))"
        driver = (f"for (int m : {{0, 1, 2, 7}}) {{ std::vector<{t}> in; for (int k = 0; "
                  f"k < m; ++k) in.push_back(({t})((k * 7) % 11 - 4)); {call}"
                  f" std::printf(\"%.17g\\n\", d); }}")
        out.append(Variant(name, code, driver))
    return out


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_generated_blocks_are_hoisted_and_keep_results(tmp_path: Path) -> None:
    variants = _block_variants(60, seed=11)
    results = compare(variants, RULES, tmp_path)
    for v in variants:
        res = results[v.name]
        assert res.rules >= RULES, (v.code, res.notes)
        # the whole block left: the outer loop (now the last) holds only the use of it
        tail = res.code[res.code.rindex("for ("):]
        assert tail.count(";") == 3 + ("return" in tail) and "out[" in tail, res.code


def test_centroid_block_is_planned_first_and_named() -> None:
    code = ("std::vector<double> f(const std::vector<double>& v) { std::vector<double> "
            "out(v.size()); for (std::size_t i = 0; i < v.size(); ++i) { double mean = 0; "
            "for (std::size_t j = 0; j < v.size(); ++j) mean += v[j]; mean /= v.size(); "
            "out[i] = (v[i] - mean) * (v[i] - mean); } return out; }")
    found = analyze(_site(code))
    assert found[0].rule == "invariant-inner-loop", [f.rule for f in found]
    assert "`mean`" in found[0].explanation and "mean /= v.size()" in found[0].explanation
    # the sum over the whole of `v` is not a range query
    assert "prefix-sum" not in {f.rule for f in found}
    plan = asyncio.run(BuiltinPlanner().plan(_site(code), JobContext()))
    assert plan.strategies[0].rule == "invariant-inner-loop"
    assert "mean /= v.size()" in plan.strategies[0].explanation
    res = rewrite(_site(code), RULES)
    assert res.code.index("mean /= v.size();") < res.code.index("for (std::size_t i")


@pytest.mark.parametrize("code", [
    # the accumulator is written again later in the body
    "void f(const std::vector<double>& x, std::vector<double>& o) { std::vector<double> t(3);"
    " for (int i = 0; i < 3; ++i) { double m = 0; for (double v : x) m += v; m /= 2; "
    "t[i] = m; m += 1; o.push_back(m); } }",
    # a finishing statement reads the outer counter, or what the outer body computed
    "std::vector<double> f(const std::vector<double>& x) { std::vector<double> o(x.size()); "
    "for (std::size_t i = 0; i < x.size(); ++i) { double m = 0; for (double v : x) m += v; "
    "m /= x[i] + 1; o[i] = m; } return o; }",
    "std::vector<double> f(const std::vector<double>& x) { std::vector<double> o(x.size()); "
    "for (std::size_t i = 0; i < x.size(); ++i) { double w = x[i] * 2; double m = 0; "
    "for (double v : x) m += v; m *= w; o[i] = m; } return o; }",
    # the outer body writes what the block reads
    "double f(std::vector<double> x) { double t = 0; for (int i = 0; i < 4; ++i) { "
    "double m = 0; for (double v : x) m += v; m /= 2; t += m; x.push_back(t); } return t; }",
    # calls that may have effects
    "double g(double); double f(const std::vector<double>& x) { double t = 0; for (int i = 0;"
    " i < 3; ++i) { double m = 0; for (double v : x) m += v; m = g(m); t += m; } return t; }",
    "double f(const std::vector<double>& x) { double t = 0; for (int i = 0; i < 3; ++i) { "
    "double m = 0; for (double v : x) m += v; m += std::rand(); t += m; } return t; }",
    # the block's name is the name of a variable outside the outer loop
    "double f(const std::vector<double>& x) { double m = 5; for (int i = 0; i < 3; ++i) { "
    "double m = 0; for (double v : x) m += v; m /= 2; } return m; }",
    "double f(const std::vector<double>& x) { double t = 0; for (int i = 0; i < 3; ++i) { "
    "double m = 0; for (double v : x) m += v; m /= 2; t += m; } double m = t; return m; }",
    # integer division by a value that may be zero, hoisted, could trap where the original
    # never divided (an outer loop of no iterations)
    "std::vector<long> f(const std::vector<long>& x) { std::vector<long> o(x.size()); "
    "for (std::size_t i = 0; i < x.size(); ++i) { long m = 0; for (long v : x) m += v; "
    "m /= (long)x.size(); o[i] = x[i] - m; } return o; }",
    # an element read outside the inner loop might not exist when the outer loop does not run
    "std::vector<double> f(const std::vector<double>& x) { std::vector<double> o(x.size()); "
    "for (std::size_t i = 0; i < x.size(); ++i) { double m = x[0]; for (double v : x) "
    "m = std::max(m, v); o[i] = m; } return o; }",
    # the block's loop variable shadows the outer one
    "double f(const std::vector<double>& x) { double t = 0; for (std::size_t j = 0; "
    "j < x.size(); ++j) { double m = 0; for (std::size_t j = 0; j < x.size(); ++j) "
    "m += x[j]; t += m; } return t; }",
])
def test_blocks_left_alone(code: str) -> None:
    res = rewrite(_site(code), RULES)
    assert not res.changed, res.code
    assert "invariant-inner-loop" not in {f.rule for f in analyze(_site(code))}


def test_an_invariant_count_is_not_called_a_linear_search() -> None:
    # the searched-for value is the same on every outer iteration: the whole count is invariant
    code = ("std::vector<int> f(const std::vector<int>& x, int key) { std::vector<int> o; "
            "for (std::size_t i = 0; i < x.size(); ++i) { int c = 0; for (std::size_t j = 0; "
            "j < x.size(); ++j) if (x[j] == key) ++c; o.push_back(x[i] * c); } return o; }")
    rules = [f.rule for f in analyze(_site(code))]
    assert rules[0] == "invariant-inner-loop" and "linear-search-in-loop" not in rules, rules
    # a key from the outer loop keeps the linear-search finding
    varying = code.replace("x[j] == key", "x[j] == x[i]")
    rules = [f.rule for f in analyze(_site(varying))]
    assert "linear-search-in-loop" in rules and "invariant-inner-loop" not in rules, rules


def test_a_restrict_output_does_not_alias_what_the_block_reads() -> None:
    code = ("void f(const double* x, double* __restrict out, int n) { for (int i = 0; i < n; "
            "++i) { double m = 0; for (int j = 0; j < n; ++j) m += x[j]; m /= n; "
            "out[i] = x[i] - m; } }")
    res = rewrite(_site(code), RULES)
    assert res.rules == RULES and res.code.index("m /= n;") < res.code.index("for (int i"), \
        res.code
    # without restrict, out may point into x: left alone (see test_left_alone)
    assert not rewrite(_site(code.replace("__restrict ", "")), RULES).changed


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_hoisted_loops_run_only_when_the_outer_loop_would(tmp_path: Path) -> None:
    # Called with n = 0 the original never reads w (a null pointer here); the hoisted loop
    # must not either: it is guarded by the outer loop's entry condition.
    code = ("double g0(const double* v, int n, const double* w, int m) {\n"
            "    double t = 0;\n"
            "    for (int i = 0; i < n; ++i) {\n"
            "        double mean = 0;\n"
            "        for (int j = 0; j < m; ++j) mean += w[j];\n"
            "        mean /= m;\n"
            "        t += (v[i] - mean) * (v[i] - mean);\n"
            "    }\n    return t;\n}\n")
    driver = ("double w[] = {1, 2, 3, 4, 5}; double v[] = {2, 4}; "
              "std::printf(\"%.17g %.17g\\n\", g0(v, 2, w, 5), g0(nullptr, 0, nullptr, 5));")
    results = compare([Variant("g0", code, driver)], frozenset({"invariant-inner-loop"}),
                      tmp_path)
    res = results["g0"]
    assert "invariant-inner-loop" in res.rules, res.notes
    # one guard over the hoisted loop and the division that finishes it
    assert "    if (n > 0) {\n        for (int j = 0; j < m; ++j) mean += w[j];\n" \
        "        mean /= m;\n    }\n" in res.code, res.code
    assert "'if (n > 0)'" in res.applied[0].explanation


def test_no_entry_condition_no_hoist() -> None:
    # A while loop's condition could change what it reads: nothing is hoisted out of it.
    code = ("double f(const double* v, int n, const double* w, int m) {\n"
            "    double t = 0; int i = 0;\n"
            "    while (i < n) {\n"
            "        double s = 0;\n"
            "        for (int j = 0; j < m; ++j) s += w[j];\n"
            "        t += v[i] * s; ++i;\n"
            "    }\n    return t;\n}\n")
    res = rewrite(_site(code), {"invariant-inner-loop"})
    assert "invariant-inner-loop" not in res.rules, res.code


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_range_for_hoist_is_guarded_by_emptiness(tmp_path: Path) -> None:
    # Over an empty range the original runs nothing: neither the hoisted loop nor the
    # division that finishes it may run then.
    code = ("double g1(const std::vector<double>& pts, const std::vector<double>& w) {\n"
            "    double t = 0;\n"
            "    for (double p : pts) {\n"
            "        double mean = 0;\n"
            "        for (double q : w) mean += q;\n"
            "        mean /= w.size();\n"
            "        t += p - mean;\n"
            "    }\n    return t;\n}\n")
    driver = ("std::vector<double> a{3, 9, 4}, b{1, 2, 8}, e; "
              "std::printf(\"%.17g %.17g %.17g\\n\", g1(a, b), g1(e, e), g1(e, b));")
    results = compare([Variant("g1", code, driver)], frozenset({"invariant-inner-loop"}),
                      tmp_path)
    res = results["g1"]
    assert "invariant-inner-loop" in res.rules, res.notes
    assert "    if (!pts.empty()) {\n        for (double q : w) mean += q;\n" \
        "        mean /= w.size();\n    }\n" in res.code, res.code


def test_range_for_over_an_unknown_range_keeps_its_loop() -> None:
    # begin() of a user type could do anything: no entry condition is written for it.
    code = ("struct R { const long* b; const long* e; const long* begin() const { return b; } "
            "const long* end() const { return e; } };\n"
            "long g2(const R& pts, const std::vector<long>& w) {\n"
            "    long t = 0;\n"
            "    for (long p : pts) {\n"
            "        long s = 0;\n"
            "        for (long q : w) s += q;\n"
            "        t += p * s;\n"
            "    }\n    return t;\n}\n")
    res = rewrite(_site(code, "g2"), {"invariant-inner-loop"})
    assert "invariant-inner-loop" not in res.rules, res.code
    assert any("no entry condition" in n for n in res.notes), res.notes


NESTED = """
#include <vector>
double grid(const std::vector<double>& a, const std::vector<double>& b, int n) {
    double total = 0;
    for (int i = 0; i < n; ++i) {
        double s = 0;
        for (std::size_t k = 0; k < a.size(); ++k) s += a[k];
        for (int j = 0; j < n; ++j) {
            double t = 0;
            for (std::size_t m = 0; m < b.size(); ++m) t += b[m];
            total += s * t + i * j;
        }
    }
    return total;
}
"""


def test_a_block_inside_an_outer_loop_moved_in_the_same_pass_waits_with_a_note() -> None:
    site = function_by_name(NESTED, "cpp", "grid")
    assert len([f for f in analyze(site) if f.rule == "invariant-inner-loop"]) == 2
    res = rewrite(site, RULES)
    assert res.rules == RULES and len(res.applied) == 1, res.notes
    # the outer block moved; the inner one (in the `j` loop, inside the moved `i` loop) waits
    assert res.code.index("double s = 0;") < res.code.index("for (int i = 0")
    assert res.code.index("double t = 0;") > res.code.index("for (int j = 0")
    assert any(n.startswith("invariant-inner-loop: the loop on line 8") and
               "the block of the loop at line 5 moves first" in n for n in res.notes), res.notes
