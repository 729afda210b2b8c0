"""The prefix-sum rule: a loop adding up a range of an unchanged integer container, re-run for
every outer iteration, becomes a difference of prefix sums built once before the nest."""

from __future__ import annotations

import dataclasses
import random
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

import perfpilot.code.container_changes as cc
import perfpilot.rules.counting.prefix_sum as ps
import perfpilot.rules.counting.range_sum as rs
from differential_support import (
    HAVE_GXX,
    Variant,
    assert_outputs_differ,
    compare_rewritten,
    finding_rules,
    rewrite_function,
)
from perfpilot.code.locate import function_by_name
from perfpilot.optimizing.builtin import rewrite
from perfpilot.planning.builtin import analyze
from perfpilot.rules.finding import RULES as RULE_TABLE
from perfpilot.rules.finding import Gain

RULES = frozenset({"prefix-sum"})
HEAD = "#include <cstdio>\n#include <map>\n#include <vector>\n#include <string>\n#include <deque>\n"


def _rewritten(code: str, name: str = "f") -> tuple[str, frozenset[str]]:
    res = rewrite_function(HEAD + code, RULES, name)
    return res.code, res.rules


def _findings(code: str, name: str = "f") -> list[str]:
    return finding_rules(HEAD + code, name)


BEST = """
long f(const std::vector<long>& a) {
    long best = a.empty() ? 0 : a[0];
    for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t j = i; j < a.size(); ++j) {
            long s = 0;
            for (std::size_t k = i; k <= j; ++k) s += a[k];
            if (s > best) best = s;
        }
    return best;
}
"""


def test_the_best_range_sum_becomes_prefix_sums() -> None:
    out, rules = _rewritten(BEST)
    assert rules == RULES
    assert "s += a[k]" not in out
    assert "std::vector<unsigned long> prefix_a(a.size() + 1);" in out
    # the counter starts at 'i', of its own type: 'i' stands for it
    assert "if (i <= j)\n" in out and "[j + 1] - prefix_a[i]" in out
    # the sums are built before the outermost loop, once
    assert out.index("prefix_a(a.size() + 1)") < out.index("for (std::size_t i = 0")
    assert "prefix-sum" in _findings(BEST)
    assert RULE_TABLE["prefix-sum"].gain is Gain.COMPLEXITY


def test_an_exclusive_bound_maps_to_p_hi() -> None:
    code = BEST.replace("k <= j", "k < j")
    out, rules = _rewritten(code)
    assert rules == RULES
    assert "if (i < j)\n" in out and "prefix_a[j] - prefix_a[i]" in out


def test_a_fresh_name_and_an_inner_placement() -> None:
    """The nest writes a vector only in its outer loop: the sums go before the inner nest,
    named apart from a variable already called ``prefix_a``."""
    code = """
long f(std::vector<int>& a, int q) {
    long prefix_a = 0;
    for (int r = 0; r < q; ++r) {
        a.push_back(r);
        for (int i = 0; i < (int)a.size(); ++i)
            for (int j = i; j < (int)a.size(); ++j) {
                long s = 0;
                for (int k = i; k <= j; ++k) s = s + a[k];
                prefix_a += s;
            }
    }
    return prefix_a;
}
"""
    out, rules = _rewritten(code)
    assert rules == RULES
    assert "prefix_a2(a.size() + 1)" in out
    assert out.index("a.push_back(r);") < out.index("prefix_a2(a.size() + 1)")


MOVING = """
std::vector<long long> f(const std::vector<int>& a, int k) {
    std::vector<long long> out;
    for (std::size_t i = 0; i + k <= a.size(); ++i) {
        long long s = 0;
        for (int j = 0; j < k; ++j) s += a[i + j];
        out.push_back(s);
    }
    return out;
}
"""


def test_a_sliding_window_sum_becomes_prefix_sums() -> None:
    """The window's elements are read at the outer counter plus the inner one; collecting
    the sums in a local vector of numbers changes nothing the sums read."""
    out, rules = _rewritten(MOVING)
    assert rules == RULES
    assert "s += a[i + j]" not in out
    assert "if (k > 0)\n" in out and "prefix_a[k + i] - prefix_a[i]" in out
    assert "out.push_back(s);" in out
    assert "prefix-sum" in _findings(MOVING)


def test_a_shift_subtracted_and_written_first() -> None:
    out, rules = _rewritten(MOVING.replace("j = 0; j < k", "j = i + 2; j < i + 2 + k")
                            .replace("a[i + j]", "a[j - 2]"))
    assert rules == RULES
    assert "prefix_a[(i + 2 + k) - 2] - prefix_a[j - 2]" in out
    out, rules = _rewritten(MOVING.replace("a[i + j]", "a[(i) + j]"))
    assert rules == RULES and "prefix_a[k + i] - prefix_a[i]" in out


def test_row_sums_of_a_flat_matrix_are_left_alone() -> None:
    """A shift with a product steps by whole rows: each element is summed once already."""
    code = MOVING.replace("a[i + j]", "a[i * k + j]").replace("i + k <= a.size()",
                                                             "(i + 1) * k <= a.size()")
    assert _rewritten(code)[1] == frozenset()
    assert "prefix-sum" not in _findings(code)


_NEST_HEAD = "    for (int i = 0; i < (int)a.size(); ++i)\n" \
             "        for (int j = i; j < (int)a.size(); ++j) {\n"

_Weaken = Callable[[pytest.MonkeyPatch], None]


def _wide(mp: pytest.MonkeyPatch) -> None:
    mp.setattr(rs, "_WIDE", rs._WIDE | {"double", "short", "float"})


def _elements(mp: pytest.MonkeyPatch) -> None:
    mp.setattr(rs, "_ELEMENTS", rs._ELEMENTS | {"double"})


def _first_declaration(mp: pytest.MonkeyPatch) -> None:
    mp.setattr(rs, "_one_type", lambda facts, name: facts.var(name))


def _any_nest(mp: pytest.MonkeyPatch) -> None:
    mp.setattr(rs, "_nest_leaves_alone", lambda *_: True)


def _first_statement(mp: pytest.MonkeyPatch) -> None:
    real = rs.statements
    mp.setattr(rs, "statements", lambda body: real(body)[:1])


def _no_names(mp: pytest.MonkeyPatch) -> None:
    mp.setattr(rs, "_names", lambda _node: frozenset())


def _any_array(mp: pytest.MonkeyPatch) -> None:
    mp.setattr(rs, "_array_ok", lambda *_: None)


def _nest(acc: str = "long", body: str = "s += a[k];", cond: str = "k <= j",
          after: str = "", param: str = "const std::vector<int>& a",
          before: str = "") -> str:
    return (f"{before}long f({param}) {{\n    long t = 0;\n" + _NEST_HEAD +
            f"            {acc} s = 0;\n            for (int k = i; {cond}; ++k) {body}\n"
            f"            t += (long)s;{after}\n        }}\n    return t;\n}}\n")


def _any_owner(mp: pytest.MonkeyPatch) -> None:
    mp.setattr(cc, "_owned_elsewhere", lambda *_: True)


def _any_elements(mp: pytest.MonkeyPatch) -> None:
    mp.setattr(cc, "_NUMBER_SEQUENCE", re.compile(".*"))


def _any_method(mp: pytest.MonkeyPatch) -> None:
    mp.setattr(cc, "_OWN_CHANGES", cc._OWN_CHANGES | {"insert"})


NEGATIVES: list[tuple[str, str, _Weaken]] = [
    (_nest(after=" out.push_back(1);").replace("    long t = 0;\n",
                                               "    long t = 0; static std::vector<int> out;\n"),
     "growth of a static vector, which a may name (from an earlier call)", _any_owner),
    (_nest(after=" out.push_back(\"x\");").replace(
        "    long t = 0;\n", "    long t = 0; std::vector<std::string> out;\n"),
     "a vector of strings: copying an element runs a constructor", _any_elements),
    (_nest(after=" out.insert(out.end(), s);").replace(
        "    long t = 0;\n", "    long t = 0; std::vector<long> out;\n"),
     "a method other than the growth ones", _any_method),
    (_nest(acc="double"), "a floating accumulator (rounding order)", _wide),
    (_nest(acc="short"), "an accumulator narrower than int", _wide),
    (_nest(param="const std::vector<double>& a"), "floating elements (each step truncates)",
     _elements),
    (_nest(after=" a[j] = 0;", param="std::vector<int>& a"), "a is written in the nest",
     _any_nest),
    (_nest(after=" a.push_back(1);", param="std::vector<int>& a"), "a grows in the nest",
     _any_nest),
    (_nest(after=" g(t);", before="void g(long);\n"), "an unknown call in the nest",
     _any_nest),
    (_nest(after=" *q = 1;", param="const std::vector<int>& a, int* q"),
     "a write through a pointer that may alias a", _any_nest),
    (_nest(body="{ s += a[k]; t += 1; }"), "an extra statement in the inner body",
     _first_statement),
    (_nest(acc="double").replace("    long t = 0;\n", "    long t = 0; long s = 1; t += s;\n"),
     "a floating accumulator shadowing an integer one", _first_declaration),
    (_nest(cond="k <= j + s * 0"), "the bound depends on the accumulator", _no_names),
    (_nest(param="const int* a, int n").replace("(int)a.size()", "n"),
     "a raw pointer: the length is unknown", _any_array),
]


@pytest.mark.parametrize(("code", "why", "weaken"), NEGATIVES,
                         ids=[w for _c, w, _f in NEGATIVES])
def test_left_alone_and_only_by_its_check(code: str, why: str, weaken: _Weaken,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    _out, rules = _rewritten(code)
    assert "prefix-sum" not in rules, why
    # the check named for this case is what keeps it: weakened, the rule rewrites it
    weaken(monkeypatch)
    _out, rules = _rewritten(code)
    assert "prefix-sum" in rules, why


@pytest.mark.parametrize(("code", "why"), [
    (_nest(body="s += a[k * 2];"), "not the element at the counter, shifted"),
    # refused twice: a reference written, and its growth may be a's
    (_nest(after=" out.push_back(1);",
           param="const std::vector<int>& a, std::vector<int>& out"),
     "growth of a vector parameter, which may be a itself"),
    (_nest(body="s += a[k + k];"), "the shift is the counter"),
    (_nest(body="s += a[1 - k];"), "the counter subtracted: the range runs backwards"),
    (_nest(body="s += a[k + s * 0];"), "the shift reads the accumulator"),
    (_nest(body="s += a[k + j * 2];"), "a product in the shift: whole windows, no overlap"),
    (_nest(body="s += a[k + m[j]];", param="const std::vector<int>& a, std::map<int, int>& m"),
     "a map's operator[] in the shift inserts"),
    (_nest(body="s -= a[k];"), "subtracts"),
    (_nest(cond="k != j"), "not an ordering test"),
    (_nest(cond="k <= j").replace("++k", "k += 2"), "steps by two"),
    (_nest(cond="k <= j + 0 * (j = i)"), "the bound has an effect"),
    (_nest(cond="k <= m[j]", param="const std::vector<int>& a, std::map<int, int>& m"),
     "a map's operator[] in the bound inserts"),
    (_nest().replace("            for (int k", "#pragma GCC unroll 4\n            for (int k"),
     "a pragma bound to the summing loop"),
    # refused three times over: the bound's shape, the call's effects, an unknown call
    (_nest(cond="k <= g(j)", before="int g(int);\n"), "a call in the bound"),
    (_nest().replace("long f(", "long f(").replace("    long t = 0;\n",
                                                 "    long t = 0; long& r = t;\n")
     .replace("t += (long)s;", "r += (long)s;"), "a reference written in the nest"),
])
def test_other_shapes_left_alone(code: str, why: str) -> None:
    _out, rules = _rewritten(code)
    assert "prefix-sum" not in rules, why


# --- differential: many generated variants built with g++, original against rewrite ---------

_LIMITS = {"int": 2**31 - 1, "long": 2**63 - 1, "long long": 2**63 - 1, "short": 2**15 - 1,
           "char": 127, "unsigned": 2**32 - 1}


def _variant(rnd: random.Random, n: int) -> Variant:
    """One range-sum nest in a random shape, called on containers of random sizes holding
    negative and large values that the original sums without overflow."""
    cont = rnd.choice(("vector", "vector", "deque", "string"))
    elem = "char" if cont == "string" else rnd.choice(("int", "long", "unsigned", "short",
                                                       "char"))
    acc = rnd.choice(("int", "long", "long long", "unsigned long"))
    ctype = f"std::vector<{elem}>" if cont == "vector" else \
        f"std::deque<{elem}>" if cont == "deque" else "std::string"
    idx = rnd.choice(("std::size_t", "int", "long"))
    kt = rnd.choice((idx, "int", "std::size_t"))
    op = rnd.choice(("<=", "<"))
    body = rnd.choice(("s += a[k];", "s = s + a[k];", "{ s += a[k]; }"))
    shape = rnd.choice(("i..j", "j..i+w", "0..j", "i-1..j", "window", "window", "back"))
    w = rnd.choice((0, 1, 3))
    name = f"rsum{n}"
    size = f"({idx})a.size()"
    if shape in ("window", "back"):  # a sliding window: the index shifted by the outer counter
        w = rnd.choice((1, 2, 3, 5))
        loops = (f"for ({idx} r = 0; r < 2; ++r)\n"
                 f"        for ({idx} i = 0; i + {w} <= {size}; ++i) {{\n")
        if shape == "window":
            lo, hi = "0", (str(w) if op == "<" else f"{w} - 1")
            at = rnd.choice(("i + k", "k + i", "k + (i)"))
        else:
            lo, hi = "i + 2", (f"i + 2 + {w}" if op == "<" else f"i + 1 + {w}")
            at = "k - 2"
        body = body.replace("a[k]", f"a[{at}]")
    elif shape == "i..j":
        loops = (f"for ({idx} i = 0; i < {size}; ++i)\n"
                 f"        for ({idx} j = i; j < {size}; ++j) {{\n")
        lo, hi = "i", "j"
    elif shape == "j..i+w":
        loops = (f"for ({idx} i = 0; i + {w} <= {size}; ++i)\n"
                 f"        for ({idx} j = 0; j <= i; ++j) {{\n")
        lo, hi, op = "j", f"i + {w}", "<"
    elif shape == "0..j":
        loops = (f"for ({idx} i = 0; i < 2; ++i)\n"
                 f"        for ({idx} j = 0; j < {size}; ++j) {{\n")
        lo, hi = "0", "j"
    else:  # j from i - 1: the first range is empty (signed counters only)
        idx = kt = rnd.choice(("int", "long"))
        size = f"({idx})a.size()"
        loops = (f"for ({idx} i = 0; i < {size}; ++i)\n"
                 f"        for ({idx} j = i - 1; j < {size}; ++j) {{\n")
        lo, hi, op = "i", "j", "<="
    signed_acc = acc != "unsigned long"
    init = rnd.choice(("0", "7", "-3")) if signed_acc else rnd.choice(("0", "7"))
    # the sums hashed at once, or collected in a local vector first (its growth changes
    # nothing else)
    collect = rnd.random() < 0.5
    keep = "out.push_back(s);" if collect else "h = h * 1000003ull + (unsigned long long)s;"
    code = (f"unsigned long long {name}(const {ctype}& a) {{\n"
            f"    unsigned long long h = 1;\n"
            f"    std::vector<{acc}> out;\n"
            f"    {loops}"
            f"            {acc} s = {init};\n"
            f"            for ({kt} k = {lo}; k {op} {hi}; ++k) {body}\n"
            f"            {keep}\n"
            f"        }}\n"
            f"    for ({acc} v : out) h = h * 1000003ull + (unsigned long long)v;\n"
            f"    return h;\n}}\n")
    top = _LIMITS[elem]
    # a signed accumulator as wide as the elements (or wider) must not overflow: 40 terms
    if signed_acc and elem != "unsigned":
        top = min(top, _LIMITS[acc] // 64)
    low = 0 if elem == "unsigned" else -top
    driver = (f"{{ for (int size = 0; size < 40; size += (size < 6 ? 1 : 9)) {{ "
              f"{ctype} a; unsigned long long x = {n * 7919 + 13}ull + size; "
              f"for (int q = 0; q < size; ++q) {{ "
              f"x = x * 6364136223846793005ull + 1442695040888963407ull; "
              f"long long v = {low}LL + (long long)((x >> 3) % {top - low + 1}ull); "
              f"a.push_back(({elem})v); }} "
              f"std::printf(\"%llu\\n\", {name}(a)); }} }}")
    return Variant(name, code, driver)


def _variants() -> list[Variant]:
    rnd = random.Random(23)
    out = [_variant(rnd, n) for n in range(96)]
    first = out[0]
    # the rewrite's headers, for the whole unit
    return [Variant(first.name, "#include <deque>\n#include <type_traits>\n" + first.code,
                    first.driver), *out[1:]]


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_generated_variants_keep_results(tmp_path: Path) -> None:
    compare_rewritten(_variants(), RULES, tmp_path)


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_the_differential_test_catches_p_hi_for_p_hi_plus_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same variants, rewritten with ``P[hi]`` where ``P[hi + 1]`` belongs, must fail."""
    real = ps._index
    monkeypatch.setattr(ps, "_index", lambda expr, found, _plus_one: real(expr, found, False))
    assert_outputs_differ(_variants(), RULES, tmp_path)


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_the_differential_test_catches_a_dropped_shift(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same variants, their window sums read at ``P[hi] - P[lo]`` without the index's
    shift, must fail."""
    real = ps._index
    monkeypatch.setattr(ps, "_index", lambda expr, found, plus_one: real(
        expr, dataclasses.replace(found, shift=""), plus_one))
    assert_outputs_differ(_variants(), RULES, tmp_path)


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_it_composes_with_the_openmp_pragma(tmp_path: Path) -> None:
    """With the OpenMP rule the outer loop also gets its pragma (the sums are built before
    it and only read inside): the candidate builds with -fopenmp and prints the same."""
    unit = HEAD + "#include <type_traits>\n" + BEST
    res = rewrite(function_by_name(unit, "cpp", "f"),
                  RULES | {"openmp-for", "openmp-reduction"})
    assert "prefix-sum" in res.rules and "#pragma omp parallel for" in res.code, res.notes
    assert res.code.index("prefix_a(a.size() + 1)") < res.code.index("#pragma omp")
    main = ("\nint main() { for (int n = 0; n < 300; n += 37) { std::vector<long> a; "
            "unsigned x = n + 1u; for (int q = 0; q < n; ++q) { x = x * 1103515245u + 12345u; "
            "a.push_back((long)(x >> 9) % 2001 - 1000); } std::printf(\"%ld\\n\", f(a)); } }\n")
    outputs = []
    for tag, code in (("orig", BEST), ("omp", res.code)):
        src = tmp_path / f"{tag}.cpp"
        src.write_text(HEAD + "#include <type_traits>\n" + code + main)
        exe = tmp_path / tag
        comp = subprocess.run(["g++", "-std=c++17", "-O1", "-fopenmp", "-o", str(exe),
                               str(src)], capture_output=True, text=True, timeout=300)
        assert comp.returncode == 0, comp.stderr
        run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120,
                             env={"OMP_NUM_THREADS": "2"})
        assert run.returncode == 0, run.stderr
        outputs.append(run.stdout)
    assert outputs[0] == outputs[1] and outputs[0].count("\n") == 9


def test_every_sum_it_rewrites_is_named_by_the_plan() -> None:
    """``s = s + a[k]`` is a proved range sum: the plan names it, as it names ``s += a[k]``."""
    code = BEST.replace("s += a[k]", "s = s + a[k]")
    assert "prefix-sum" in _findings(code)
    assert _rewritten(code)[1] == RULES


def test_two_sums_of_one_array_share_one_finding_and_one_build() -> None:
    code = BEST.replace("            if (s > best) best = s;\n",
                        "            long t = 0;\n"
                        "            for (std::size_t k = i; k < j; ++k) t += a[k];\n"
                        "            if (s - t > best) best = s - t;\n")
    found = [f for f in analyze(function_by_name(HEAD + code, "cpp", "f"))
             if f.rule == "prefix-sum"]
    assert len(found) == 1 and "1 more loop" in found[0].explanation
    out, rules = _rewritten(code)
    assert rules == RULES and out.count("prefix_a(a.size() + 1)") == 1, out
    assert "+= a[k]" not in out


def test_an_advised_sum_it_cannot_rewrite_ends_in_a_note() -> None:
    """A raw pointer: the plan advises prefix sums, the rewrite says why it stays."""
    code = _nest(param="const int* a, int n").replace("(int)a.size()", "n")
    assert "prefix-sum" in _findings(code)
    res = rewrite_function(HEAD + code, RULES, "f")
    assert not res.changed
    assert any(n.startswith("prefix-sum: the loop on line") and "raw pointer" in n
               for n in res.notes), res.notes
