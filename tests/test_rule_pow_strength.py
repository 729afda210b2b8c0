"""pow-strength: ``pow(x, k)`` for small integer ``k`` becomes multiplications, over generated
variants (types, names, exponents, loop forms, costly or side-effecting bases), and is left
alone where it cannot keep the result."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from differential_support import HAVE_GXX, Variant, compare
from perfpilot.code.locate import function_by_name
from perfpilot.optimizing.builtin import rewrite

RULES = frozenset({"pow-strength"})

_TYPES = ("double", "float", "int", "long")
_CALLS = ("pow", "std::pow", "powf")
_LOOPS = (
    "for (int {i} = 0; {i} < n; ++{i}) {{ {acc} += {expr}; }}",
    "for (std::size_t {i} = 0; {i} < {v}.size(); {i}++) {acc} += {expr};",
    "int {i} = 0; while ({i} < n) {{ {acc} += {expr}; ++{i}; }}",
)
_BASES = ("{v}[{i}]", "({v}[{i}] - 1)", "{v}[{i}] * 0.5", "-{v}[{i}]")


def _variants(count: int, seed: int) -> list[Variant]:
    rnd = random.Random(seed)
    out: list[Variant] = []
    for n in range(count):
        t = rnd.choice(_TYPES)
        call = rnd.choice(_CALLS)
        k = rnd.randint(2, 8)
        kt = rnd.choice((str(k), f"{k}.0") + ((f"{k}.0f",) if call == "powf" else ()))
        v, i, acc = rnd.choice(("xs", "vals", "a")), rnd.choice(("i", "j", "idx")), \
            rnd.choice(("s", "total", "r"))
        base = rnd.choice(_BASES).format(v=v, i=i)
        loop = rnd.choice(_LOOPS).format(i=i, v=v, acc=acc, expr=f"{call}({base}, {kt})")
        name = f"p{n}"
        code = (f"double {name}(const std::vector<{t}>& {v}, int n) {{\n"
                f"    double {acc} = 0;\n    {loop}\n    return {acc};\n}}\n")
        lo, hi = (-3, 4) if t in ("int", "long") else (-2.5, 2.5)
        vals = ", ".join(str(rnd.randint(int(lo), int(hi))) if t in ("int", "long")
                         else f"{rnd.uniform(lo, hi):.6f}" for _ in range(7))
        driver = (f"std::vector<{t}> in = {{{vals}}}; "
                  f"std::printf(\"%.17g\\n\", {name}(in, (int)in.size()));")
        out.append(Variant(name, code, driver, rel=1e-5 if call == "powf" else 0.0))
    return out


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_generated_variants_keep_results(tmp_path: Path) -> None:
    variants = _variants(48, seed=7)
    # a side-effecting base, evaluated once through a temporary
    variants.append(Variant("once", """
double once(const std::vector<double>& v) {
    int j = 0;
    double s = 0;
    while (j < (int)v.size()) s += std::pow(v[j++], 3);
    return s;
}
""", "std::vector<double> in = {1.5, -2.0, 0.25}; std::printf(\"%.17g\\n\", once(in));"))
    results = compare(variants, RULES, tmp_path, rel=1e-12)
    missed = [name for name, res in results.items() if "pow-strength" not in res.rules]
    assert not missed, [results[m].notes for m in missed]
    assert all("pow(" not in res.code and "powf(" not in res.code for res in results.values())


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_small_integer_bases_are_exact(tmp_path: Path) -> None:
    variants = [
        Variant(f"e{k}_{t}", f"double e{k}_{t}({t} x) {{ return std::pow(x, {k}); }}\n",
                f"for ({t} x = -9; x <= 9; ++x) std::printf(\"%.17g\\n\", e{k}_{t}(x));")
        for k, t in itertools.product(range(2, 9), ("int", "double"))]
    compare(variants, RULES, tmp_path, rel=0.0)


def _rewritten(code: str, name: str, language: str = "cpp") -> tuple[str, frozenset[str],
                                                                      tuple[str, ...]]:
    src = ("#include <cmath>\n#include <vector>\n" if language == "cpp" else
           "#include <math.h>\n") + code
    res = rewrite(function_by_name(src, language, name), RULES)  # type: ignore[arg-type]
    return res.code, res.rules, res.notes


def test_explanation_names_the_last_bit_for_higher_powers() -> None:
    site = function_by_name("#include <cmath>\ndouble c(double x) { return pow(x, 3); }\n",
                            "cpp", "c")
    res = rewrite(site, RULES)
    assert "x * x * x" in res.code
    assert "last bit" in res.applied[0].explanation


@pytest.mark.parametrize(("code", "name", "words"), [
    ("double r(double x) { return pow(x, 0.5); }", "r", "-0"),
    ("double big(double x) { return pow(x, 9); }", "big", ""),
    ("double neg(double x) { return pow(x, -2); }", "neg", ""),
    ("double fr(double x) { return pow(x, 2.5); }", "fr", ""),
    ("double var(double x, int k) { return pow(x, k); }", "var", ""),
    ("long double ld(long double x) { return pow(x, 3); }", "ld", "type"),
    ("struct P { double x; }; double fld(P p) { return pow(p.x, 3); }", "fld", "type"),
    ("double g(double); double call(double x) { return pow(g(x), 3); }", "call", "type"),
    # std::pow(float, float) is the float overload; the rewrite does not guess at it
    ("float ff(float x) { return std::pow(x, 3.0f); }", "ff", ""),
])
def test_left_alone(code: str, name: str, words: str) -> None:
    text, rules, notes = _rewritten(code, name)
    assert "pow-strength" not in rules, text
    if words:
        assert any(words in n for n in notes), notes


def test_costly_base_gets_a_local_in_c_too() -> None:
    text, rules, _notes = _rewritten(
        "double c(const double *v, int i) { return pow(v[i] + v[i + 1], 3); }", "c", "c")
    assert "pow-strength" in rules
    assert "const double sum = v[i] + v[i + 1];" in text
    assert "return sum * sum * sum;" in text


def test_a_base_evaluated_conditionally_is_left_with_a_note() -> None:
    _text, rules, notes = _rewritten(
        "double c(const std::vector<double>& v, int i) {\n"
        "    return i > 0 && std::pow(v[i] - v[i - 1], 3) > 1.0 ? 1.0 : 0.0;\n}", "c")
    assert "pow-strength" not in rules
    assert any("conditionally" in n for n in notes), notes


def test_no_lambda_and_no_redundant_parentheses() -> None:
    text, rules, _notes = _rewritten(
        "double m(const std::vector<double>& v, double c) {\n    double acc = 0.0;\n"
        "    for (std::size_t i = 0; i < v.size(); ++i)\n"
        "        acc += std::pow(v[i] - c, 3) + 2.0 * std::pow(v[i], 2);\n    return acc;\n}",
        "m")
    assert "pow-strength" in rules
    assert "[&]" not in text
    assert "const double diff = v[i] - c;" in text
    assert "acc += diff * diff * diff + 2.0 * (v[i] * v[i]);" in text
    # the unbraced loop body became a block for the new local
    assert "for (std::size_t i = 0; i < v.size(); ++i) {" in text


def test_a_comment_mentioning_pow_is_no_definition() -> None:
    text, rules, _notes = _rewritten(
        "/* Sums written with pow() for clarity. */\n"
        "double s(const double *x, int n) {\n    double t = 0;\n"
        "    for (int i = 0; i < n; ++i) t += pow(x[i], 2);\n    return t;\n}", "s", "c")
    assert "pow-strength" in rules, text


def test_own_pow_is_left() -> None:
    _text, rules, _notes = _rewritten(
        "double pow(double a, int b) { return a; }\ndouble u(double x) { return pow(x, 3); }",
        "u")
    assert "pow-strength" not in rules


def test_the_calls_of_one_statement_are_rewritten_by_one_fix_and_the_others_say_so() -> None:
    text, rules, notes = _rewritten(
        "double m(const std::vector<double>& v, double c) {\n    double acc = 0.0;\n"
        "    for (std::size_t i = 0; i < v.size(); ++i)\n"
        "        acc += std::pow(v[i] - c, 3) + std::pow(v[i] + c, 2) + pow(c, 2);\n"
        "    return acc;\n}", "m")
    assert "pow-strength" in rules and "pow(" not in text, text
    assert "const double diff = v[i] - c;" in text and "const double sum = v[i] + c;" in text
    assert "acc += diff * diff * diff + sum * sum + c * c;" in text
    assert notes == (
        "pow-strength: `std::pow(v[i] + c, 2)` on line 6 is rewritten with the pow call on "
        "line 6: one rewrite declares the locals of a statement and rewrites all its pow calls",
        "pow-strength: `pow(c, 2)` on line 6 is rewritten with the pow call on line 6: one "
        "rewrite declares the locals of a statement and rewrites all its pow calls")


def test_each_call_detection_reports_ends_in_a_change_or_a_note_naming_it() -> None:
    _text, rules, notes = _rewritten(
        "double n(double x) { return pow(x, 0.5) + pow(x, -1) + powl(x, 2) + pow(x, 2); }", "n")
    assert "pow-strength" in rules
    assert [n.split(" stays: ")[0] for n in notes] == [
        "pow-strength: `pow(x, 0.5)` on line 3", "pow-strength: `pow(x, -1)` on line 3",
        "pow-strength: `powl(x, 2)` on line 3"]
    assert "not `powl`" in notes[2]



def test_a_call_in_the_base_of_another_leaves_both() -> None:
    text, rules, notes = _rewritten("double q(double x) { return pow(pow(x, 2) + 1.0, 3); }",
                                    "q")
    # the inner call is rewritten; the outer one's base (a call) has no known type
    assert "pow-strength" in rules and "return pow(x * x + 1.0, 3);" in text, text
    assert notes == ("pow-strength: `pow(pow(x, 2) + 1.0, 3)` on line 3 stays: the base's type "
                     "is unknown",)
