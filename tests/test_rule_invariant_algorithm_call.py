"""invariant-algorithm-call: a standard algorithm over a whole container that a loop never
changes, with arguments it never changes, is computed once before the (outermost such) loop;
calls that may change, or that could misbehave where the original never made them, stay.
A g++ differential over generated variants (algorithms, element types, call positions, loop
forms, empty containers), shown to fail against a rewrite that skips the invariance proof."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from differential_support import (
    HAVE_GXX,
    Variant,
    assert_outputs_differ,
    compare,
    finding_rules,
    rewrite_function,
)
from perfpilot.code import invariant_scans

RULE = "invariant-algorithm-call"
RULES = frozenset({RULE})
HEAD = "#include <algorithm>\n#include <numeric>\n#include <vector>\n#include <cstdio>\n"


def _rewrite(body: str, params: str = "const std::vector<double>& v, int n") -> tuple[str, str]:
    unit = HEAD + f"double f({params}) {{\n double s = 0;\n{body}\n return s;\n}}\n"
    res = rewrite_function(unit, RULES)
    return res.code, "\n".join(res.notes)


# --- positives ---------------------------------------------------------------------------

def test_variance_is_hoisted_and_the_search_advice_steps_aside() -> None:
    unit = HEAD + """
double f(const std::vector<double>& v) {
    double var = 0;
    for (size_t i = 0; i < v.size(); ++i) {
        double mean = std::accumulate(v.begin(), v.end(), 0.0) / v.size();
        var += (v[i] - mean) * (v[i] - mean);
    }
    return var / v.size();
}
"""
    rules = finding_rules(unit)
    assert RULE in rules and "linear-search-in-loop" not in rules, rules
    code = rewrite_function(unit, RULES).code
    assert "const auto v_accumulate = std::accumulate(v.begin(), v.end(), 0.0);" in code
    assert "double mean = v_accumulate / v.size();" in code


def test_inside_a_larger_expression_only_the_call_moves() -> None:
    code, _ = _rewrite(" for (int i = 0; i < n; ++i) s += i * 2.0 - "
                       "std::count(v.begin(), v.end(), 1.0) * 0.5;")
    assert "const auto v_count = std::count(v.begin(), v.end(), 1.0);" in code
    assert "s += i * 2.0 - v_count * 0.5;" in code


def test_in_a_loop_condition() -> None:
    code, _ = _rewrite(" for (int i = 0; i < std::count_if(v.begin(), v.end(), "
                       "[](double x) { return x > 0; }); ++i) s += i;")
    assert "const auto v_count_if = std::count_if(" in code
    assert "i < v_count_if;" in code


def test_hoisted_out_of_every_loop_it_is_invariant_in() -> None:
    code, _ = _rewrite(" for (int o = 0; o < n; ++o)\n  for (int i = 0; i < n; ++i)\n"
                       "   s += std::accumulate(v.begin(), v.end(), 0.0) * o;")
    assert code.index("const auto v_accumulate") < code.index("for (int o")


def test_an_iterator_is_hoisted_and_dereferenced_in_the_loop() -> None:
    code, _ = _rewrite(" for (std::size_t i = 0; i < v.size(); ++i) s += "
                       "*std::max_element(v.begin(), v.end()) - v[i];")
    assert "const auto v_max_element = std::max_element(v.begin(), v.end());" in code
    assert "s += *v_max_element - v[i];" in code


def test_an_integer_sum_is_computed_under_the_loops_entry_condition() -> None:
    code, _ = _rewrite(" for (int i = 0; i < n; ++i) { long t = std::accumulate(v.begin(), "
                       "v.end(), 0L); s += t; }", "const std::vector<int>& v, int n")
    assert ("const auto v_accumulate = (static_cast<int>(0) < (n)) ? std::accumulate("
            "v.begin(), v.end(), 0L) : (0L);"
            in code), code


def test_a_local_container_the_loop_fills_beside_is_no_obstacle() -> None:
    code, _ = _rewrite(" std::vector<double> out;\n for (int i = 0; i < n; ++i) "
                       "out.push_back(std::accumulate(v.begin(), v.end(), 0.0) + i);\n"
                       " s = out.empty() ? 0 : out.back();")
    assert "const auto v_accumulate" in code


# --- refusals ----------------------------------------------------------------------------

@pytest.mark.parametrize(("body", "params", "why"), [
    # the range changes by name
    (" for (int i = 0; i < n; ++i) { v.push_back(i); s += std::accumulate(v.begin(), "
     "v.end(), 0.0); }", "std::vector<double>& v, int n", "writes `v`"),
    (" for (std::size_t i = 0; i < v.size(); ++i) { v[i] += 1; s += std::accumulate("
     "v.begin(), v.end(), 0.0); }", "std::vector<double> v, int n", "writes `v`"),
    # ... through another reference of its type, or a pointer
    (" for (int i = 0; i < n; ++i) { w[0] = i; s += std::accumulate(v.begin(), v.end(), "
     "0.0); }", "const std::vector<double>& v, std::vector<double>& w, int n", "writes `w`"),
    (" for (int i = 0; i < n; ++i) { *p = i; s += std::accumulate(v.begin(), v.end(), "
     "0.0); }", "const std::vector<double>& v, double* p, int n", "writes `p`"),
    # ... through a call the analysis cannot see into
    (" for (int i = 0; i < n; ++i) { touch(); s += std::accumulate(v.begin(), v.end(), "
     "0.0); }", "const std::vector<double>& v, int n", "calls `touch`"),
    # a scalar argument, or a name the lambda reads, is written in the loop
    (" double k = 0;\n for (int i = 0; i < n; ++i) { k += 1; s += std::count(v.begin(), "
     "v.end(), k); }", "const std::vector<double>& v, int n", "changes `k`"),
    (" double k = 0;\n for (int i = 0; i < n; ++i) { k = i; s += std::count_if(v.begin(), "
     "v.end(), [&](double x) { return x > k; }); }", "const std::vector<double>& v, int n",
     "changes `k`"),
    # the loop's own counter
    (" for (int i = 0; i < n; ++i) s += std::count(v.begin(), v.end(), (double)i);",
     "const std::vector<double>& v, int n", "changes `i`"),
    # two reasons to stay (the counter, a cast the names read as a variable): the same one on
    # every run, whatever the order of a set of names
    (" for (int i = 0; i < n; ++i) s += std::count_if(v.begin(), v.end(), [i](double x) "
     "{ return static_cast<int>(x) == i; });", "const std::vector<double>& v, int n",
     "changes `i`"),
    # a local reference may name what the loop writes
    (" std::vector<double> own(v);\n const std::vector<double>& r = own;\n"
     " for (int i = 0; i < n; ++i) { own[0] = i; s += std::accumulate(r.begin(), r.end(), "
     "0.0); }", "const std::vector<double>& v, int n", "local reference"),
    # not a whole container
    (" for (int i = 0; i < n; ++i) s += std::accumulate(v.begin() + 1, v.end(), 0.0);",
     "const std::vector<double>& v, int n", "whole container"),
    # an integer sum under a branch: hoisted, it could overflow where the original never ran it
    (" for (int i = 0; i < n; ++i) if (i > 2) s += std::accumulate(v.begin(), v.end(), 0);",
     "const std::vector<int>& v, int n", "under a branch"),
    (" for (int i = 0; i < n; ++i) { if (i == 3) continue; s += std::accumulate(v.begin(), "
     "v.end(), 0); }", "const std::vector<int>& v, int n", "may jump"),
    (" for (int i = 0; i < n && std::accumulate(v.begin(), v.end(), 0) > i; ++i) s += i;",
     "const std::vector<int>& v, int n", "`&&`"),
    # inner_product reads a second range that may be too short: only where it surely runs
    (" for (int i = 0; i < n; ++i) if (i) s += std::inner_product(v.begin(), v.end(), "
     "w.begin(), 0.0);", "const std::vector<double>& v, const std::vector<double>& w, int n",
     "under a branch"),
    # a lambda with effects
    (" int c = 0;\n for (int i = 0; i < n; ++i) s += std::count_if(v.begin(), v.end(), "
     "[&](double x) { ++c; return x > 0; });", "const std::vector<double>& v, int n",
     "lambda"),
    # elements of a class type: their operators may do anything
    (" for (int i = 0; i < n; ++i) s += std::count(v.begin(), v.end(), P{});",
     "const std::vector<P>& v, int n", "arithmetic elements"),
])
def test_left_alone(body: str, params: str, why: str) -> None:
    code, notes = _rewrite(body, params)
    assert "const auto" not in code, code
    assert why in notes, notes


def test_the_linear_search_advice_stays_for_a_search_that_varies() -> None:
    unit = HEAD + ("int f(const std::vector<int>& v, int n) { int c = 0; for (int i = 0; "
                   "i < n; ++i) c += std::find(v.begin(), v.end(), i) != v.end(); return c; }")
    rules = finding_rules(unit)
    assert "linear-search-in-loop" in rules and RULE not in rules, rules
    # a count of a varying value is the count-table rule's (one pass into a map of counts)
    rules = finding_rules(unit.replace("std::find(v.begin(), v.end(), i) != v.end()",
                                       "std::count(v.begin(), v.end(), i)"))
    assert "count-table" in rules and RULE not in rules, rules


# --- differential ------------------------------------------------------------------------

# (call, whether it dereferences a result that is past the end of an empty range)
_CALLS = {
    "acc_f": ("std::accumulate(v.begin(), v.end(), 0.0)", False),
    "acc_i": ("std::accumulate(v.begin(), v.end(), 0)", False),
    "count": ("std::count(v.begin(), v.end(), k)", False),
    "count_if": ("std::count_if(v.begin(), v.end(), [&]({T} x) {{ return x > k; }})", False),
    "any_of": ("std::any_of(v.begin(), v.end(), []({T} x) {{ return x * 2 == 6; }})", False),
    "max_deref": ("*std::max_element(v.begin(), v.end())", True),
    "min_pos": ("(std::min_element(v.begin(), v.end()) - v.begin())", False),
    "find_pos": ("(std::find(v.begin(), v.end(), k) - v.begin())", False),
    "inner": ("std::inner_product(v.begin(), v.end(), w.begin(), 0)", False),
    "reduce": ("std::reduce(v.begin(), v.end())", False),
}


def _computed_anywhere(call: str, t: str) -> bool:
    """Whether the rule may compute the call where the original would not (it cannot
    misbehave): floating sums, comparisons, iterator results."""
    return call in ("acc_f", "count", "count_if", "max_deref", "min_pos", "find_pos") or \
        (call == "reduce" and t == "double")
# loop head, the element the body reads, loop tail; whether the loop runs only over v
_LOOPS = {
    "for_v": ("for (std::size_t i = 0; i < v.size(); ++i) {{", "(double)v[i]", "}}", True),
    "for_n": ("for (int i = 0; i < n; ++i) {{", "(double)i", "}}", False),
    "range_v": ("for ({T} x : v) {{", "(double)x", "}}", True),
    "while_n": ("int j = 0;\n    while (j < n) {{", "(double)j", "++j; }}", False),
    "do_n": ("int j = 0;\n    do {{", "(double)j", "++j; }} while (j < n);", False),
    "nested": ("for (int o = 0; o < n; ++o) for (std::size_t i = 0; i < v.size(); ++i) {{",
               "(double)v[i] * o", "}}", True),
    "cond": ("for (int i = 0; (double)i < (double)({CALL}) + n; ++i) {{", "(double)i", "}}",
             False),
}
_POSITIONS = {
    "decl": "auto c = {CALL}; s += {E} * 0.5 + (double)c;",
    "expr": "s += {E} - (double)({CALL}) * 0.25;",
    "branch": "if ({E} > 1) s += (double)({CALL});",
}


def _variants() -> list[tuple[Variant, bool]]:
    """The variants, each with whether the rule must rewrite it."""
    out: list[tuple[Variant, bool]] = []
    for n, (t, call, loop, pos) in enumerate(itertools.product(
            ("int", "double", "unsigned"), _CALLS, _LOOPS, _POSITIONS)):
        text, needs_element = _CALLS[call]
        head, elem, tail, over_v = _LOOPS[loop]
        if (needs_element and not over_v) or (call == "any_of" and t == "double") or \
                (loop == "cond" and (needs_element or pos != "decl")) or \
                (n % 7 and (n % 3 or call not in ("acc_f", "acc_i", "max_deref", "inner"))):
            continue  # a dereference the original might make on an empty range is UB
        name = f"g{n}"
        stmt = _POSITIONS[pos].format(CALL=text.format(T=t), E=elem) if loop != "cond" \
            else f"s += {elem};"
        code = (f"double {name}(const std::vector<{t}>& v, const std::vector<{t}>& w, "
                f"{t} k, int n) {{\n    double s = 0;\n    "
                f"{head.format(T=t, CALL=text.format(T=t))}\n"
                f"        {stmt}\n    {tail.format()}\n    return s;\n}}\n")
        driver = (f"for (int m : {{0, 1, 5, 40}}) for (int nn : {{0, 1, 3}}) {{ "
                  f"std::vector<{t}> in; for (int q = 0; q < m; ++q) in.push_back(({t})"
                  f"((q * 7) % 11)); std::printf(\"%.17g\\n\", {name}(in, in, ({t})3, nn)); }}")
        # rewritten when it cannot misbehave, or when its loop's first iteration surely
        # computes it (not under a branch; nested, its own loop is no statement of a block)
        expect = _computed_anywhere(call, t) or (pos != "branch" and loop != "nested")
        out.append((Variant(name, code, driver), expect))
    return out


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_generated_variants_keep_results(tmp_path: Path) -> None:
    cases = _variants()
    results = compare([v for v, _ in cases], RULES, tmp_path)
    for v, expect in cases:
        assert (RULE in results[v.name].rules) == expect, (v.code, results[v.name].notes)


def _changing_variants() -> list[Variant]:
    out = []
    for n, call in enumerate(("std::accumulate(v.begin(), v.end(), 0.0)",
                              "std::count(v.begin(), v.end(), 2.0)",
                              "*std::max_element(v.begin(), v.end())")):
        name = f"h{n}"
        code = (f"double {name}(std::vector<double> v) {{\n    double s = 0;\n"
                f"    for (std::size_t i = 0; i < v.size(); ++i) {{\n        v[i] += 1;\n"
                f"        s += {call};\n    }}\n    return s;\n}}\n")
        driver = (f"std::vector<double> in{{1, 2, 3, 4}}; "
                  f"std::printf(\"%.17g\\n\", {name}(in));")
        out.append(Variant(name, code, driver))
    return out


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_the_differential_catches_a_hoist_of_a_changing_range(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    variants = _changing_variants()
    assert not any(RULE in r.rules for r in compare(variants, RULES, tmp_path).values())
    monkeypatch.setattr(invariant_scans, "_changes", lambda *_a: "")  # no invariance proof
    assert_outputs_differ(variants, RULES, tmp_path)
