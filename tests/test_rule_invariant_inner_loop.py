"""invariant-inner-loop: a reduction loop nested in another loop that computes the same value on
every outer iteration runs once before it (O(n^2) to O(n)), over generated variants (types,
names, reductions, loop forms); inner loops that read what the outer loop changes stay."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from differential_support import HAVE_GXX, Variant, compare
from perfpilot.code.locate import function_by_name
from perfpilot.optimizing.builtin import rewrite
from perfpilot.planning.builtin import analyze

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
    # the accumulator carries over or is changed after the inner loop
    "double f(const std::vector<double>& x) { double t = 0; for (std::size_t i = 0; "
    "i < x.size(); ++i) { double s = 0; for (double v : x) s += v; s /= 2; t += s; } "
    "return t; }",
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
