"""sorted-linear-scan over standard algorithm calls: ``std::count``/``std::find`` (and the
``_if``/``find_if_not`` forms with a lambda that compares its element with a fixed value, and
``std::ranges::count(v, q)``/``std::ranges::find(v, q)``) over all of a container a sort (or
``std::ranges::sort``) left in order become binary searches. Generated variants (int, long,
unsigned and std::string elements; count, find kept as an iterator, find as a distance, find
compared with the end, count_if, find_if and find_if_not with each comparison both ways round;
both sort orders; every spelling of the whole range; inside and outside a loop over queries;
duplicates and missing keys; the ranges forms built as C++20) are built and run both ways;
partial ranges, writes after the sort, other comparators, floating elements, predicates whose
matches are not one run, and positions that escape are left alone."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from differential_support import HAVE_GXX, Variant, compare
from perfpilot.code.locate import function_by_name
from perfpilot.optimizing.builtin import rewrite
from perfpilot.planning.builtin import analyze
from perfpilot.rules.edits import Edit
from perfpilot.rules.search import sorted_linear_scan

RULE = "sorted-linear-scan"
RULES = frozenset({RULE})
_PRELUDE = ("#include <algorithm>\n#include <cstdio>\n#include <functional>\n#include <string>\n"
            "#include <vector>\n")

# (element type, the query types it may be looked up with)
_ELEMENTS = (
    ("int", ("int", "long", "short")),
    ("long", ("long", "int", "long long")),
    ("unsigned", ("unsigned", "int", "unsigned long")),
    ("std::string", ("std::string",)),
)
_OPS = ("<", "<=", ">", ">=", "==")
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
# (first, last, begin to measure from)
_RANGES = (("v.begin()", "v.end()", "v.begin()"), ("v.cbegin()", "v.cend()", "v.cbegin()"),
           ("std::begin(v)", "std::end(v)", "v.begin()"))
_FORMS = ("count", "count_if", "find_at", "find_kept", "find_found", "find_missing",
          "find_if_at", "find_if_not_at")
# ``std::ranges`` searches (C++20): every form above over ``v`` as a whole
_RANGES_FORMS = ("ranges_count", "ranges_find_at", "ranges_find_kept", "ranges_find_found",
                 "ranges_find_missing")
_SORTS = ("std::sort(v.begin(), v.end());", "std::stable_sort(v.begin(), v.end());",
          "std::sort(v.begin(), v.end(), std::less<{t}>());",
          "std::sort(std::begin(v), std::end(v));",
          "std::sort(v.begin(), v.end(), std::greater<>());",
          "std::sort(v.begin(), v.end(), std::greater<{t}>());")
_RANGES_SORTS = ("std::ranges::sort(v);", "std::ranges::stable_sort(v);",
                 "std::ranges::sort(v, std::greater{});", "std::ranges::sort(v, std::greater<>());",
                 "std::ranges::sort(v, std::ranges::greater{});",
                 "std::ranges::sort(v, std::ranges::less{});")


def _sort(rnd: random.Random, t: str, cxx20: bool = False) -> str:
    return rnd.choice(_SORTS + _RANGES_SORTS if cxx20 else _SORTS).replace("{t}", t)


def _lambda(rnd: random.Random, t: str, op: str) -> str:
    """A predicate comparing its element with ``q``, written one of several ways."""
    kind = rnd.randrange(4)
    if kind == 0:
        return f"[q]({t} x) {{ return x {op} q; }}"
    if kind == 1:
        return f"[&](const auto& e) {{ return q {_FLIP[op]} e; }}"
    if kind == 2:
        return f"[=](auto x) -> bool {{ return (x {op} q); }}"
    return f"[&q](const {t}& y) {{ return y {op} q; }}"


def _use(rnd: random.Random, form: str, t: str) -> tuple[list[str], str]:
    """Statements and the value they compute (as ``unsigned long long``) for one query ``q``."""
    first, last, begin = rnd.choice(_RANGES)
    if form.startswith("ranges_"):
        # the same forms over the whole of ``v``, compared with its end as written
        form = form.removeprefix("ranges_")
        first, last, begin = "", rnd.choice(("v.end()", "v.cend()", "std::end(v)")), "v.begin()"
    call = "std::ranges::{}(v, q)" if not first else f"std::{{}}({first}, {last}, q)"
    if form == "count":
        return [], f"(unsigned long long){call.format('count')}"
    if form == "count_if":
        op = rnd.choice((*_OPS, "!="))
        return [], f"(unsigned long long)std::count_if({first}, {last}, {_lambda(rnd, t, op)})"
    find = call.format("find")
    if form == "find_at":
        return [], f"(unsigned long long)({find} - {begin})"
    if form == "find_kept":
        return ([f"auto it = {find};"],
                f"(it == {last} ? 999ULL : (unsigned long long)(it - {begin}) * 2 + "
                "(*it == q ? 1 : 0))")
    if form == "find_found":
        return [], f"({find} != {last} ? 7ULL : 3ULL)"
    if form == "find_missing":
        return [], f"({find} == {last} ? 5ULL : 11ULL)"
    algo = "find_if_not" if form == "find_if_not_at" else "find_if"
    # ``find_if_not`` with ``==`` finds the first element that differs: not one search
    op = rnd.choice(_OPS if algo == "find_if" else (*_OPS[:4], "!="))
    return [], (f"(unsigned long long)(std::{algo}({first}, {last}, {_lambda(rnd, t, op)}) - "
                f"{begin})")


def _variant(rnd: random.Random, name: str, form: str, cxx20: bool = False) -> Variant:
    t, queries = rnd.choice(_ELEMENTS)
    qt = rnd.choice(queries)
    before, value = _use(rnd, form, t)
    lines = [f"unsigned long long {name}(std::vector<{t}> v, "
             f"const std::vector<{qt}>& qs) {{", f"    {_sort(rnd, t, cxx20)}",
             "    unsigned long long total = 0;"]
    if rnd.random() < 0.6:
        head = rnd.choice((f"for ({qt} q : qs) {{", "for (const auto& q : qs) {",
                           f"for (std::size_t j = 0; j < qs.size(); ++j) {{ const {qt} q = "
                           "qs[j];"))
        lines += [f"    {head}", *(f"        {b}" for b in before),
                  f"        total = total * 31 + {value};", "    }"]
    else:
        # one query, outside any loop
        lines += ["    if (qs.empty()) return 0;", f"    const {qt} q = qs[qs.size() / 2];",
                  *(f"    {b}" for b in before), f"    total = {value};"]
    lines += ["    return total;", "}"]
    return Variant(name, "\n".join(lines) + "\n", _driver(name, t, qt))


def _value(t: str, expr: str) -> str:
    return f"std::to_string({expr})" if t == "std::string" else f"({t})({expr})"


def _driver(name: str, t: str, qt: str) -> str:
    """Containers of sizes 0 to 33 with many duplicates (negative values wrap for unsigned
    types), asked for values below, between, at and above the elements, one at a time and all
    together."""
    return (f"const int sizes[] = {{0, 1, 2, 3, 4, 7, 10, 33}}; for (int m : sizes) {{ "
            f"std::vector<{t}> v; for (int k = 0; k < m; ++k) "
            f"v.push_back({_value(t, '(k * 37 + m * 11) % 9 - 3')}); "
            f"std::vector<{qt}> all; for (int d = -6; d <= 7; ++d) "
            f"all.push_back({_value(qt, 'd')}); all.push_back({_value(qt, '100')}); "
            f"std::printf(\"%llu\\n\", {name}(v, all)); "
            f"for (const auto& q : all) std::printf(\"%llu \", {name}(v, "
            f"std::vector<{qt}>(1, q))); std::printf(\"\\n\"); }}")


def _variants(count: int, seed: int, cxx20: bool = False) -> list[Variant]:
    rnd = random.Random(seed)
    forms = _FORMS + _RANGES_FORMS if cxx20 else _FORMS
    return [_variant(rnd, f"calls{k}", forms[k % len(forms)], cxx20) for k in range(count)]


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
@pytest.mark.parametrize(("seed", "std"), [(1, "c++17"), (2, "c++17"), (3, "c++20")])
def test_generated_variants_keep_results(tmp_path: Path, seed: int, std: str) -> None:
    variants = _variants(56 if std == "c++17" else 65, seed=seed, cxx20=std == "c++20")
    results = compare(variants, RULES, tmp_path, std=std)
    for v in variants:
        res = results[v.name]
        assert RULE in res.rules, (v.code, res.notes)
        assert "std::count(" not in res.code and "std::find(" not in res.code and \
            "_if(" not in res.code and "_if_not(" not in res.code and \
            "ranges::count" not in res.code and "ranges::find" not in res.code, res.code


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_the_differential_check_catches_a_wrong_bound(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same check fails when a find is answered with the upper bound of the run."""
    right = sorted_linear_scan._call_edit

    def wrong(inp: object, c: object) -> Edit:
        e = right(inp, c)  # type: ignore[arg-type]
        return Edit(e.start, e.end, e.text.replace("lower_bound", "upper_bound"), e.rule)

    monkeypatch.setattr(sorted_linear_scan, "_call_edit", wrong)
    rnd = random.Random(5)
    variants = [_variant(rnd, f"broken{k}", form)
                for k, form in enumerate(("find_at", "find_kept") * 3)]
    with pytest.raises(AssertionError):
        compare(variants, RULES, tmp_path)


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
@pytest.mark.parametrize("form", ["ranges_find_at", "ranges_find_kept", "find_if_not_at"])
def test_the_differential_check_catches_a_wrong_bound_in_the_new_forms(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, form: str) -> None:
    """The ranges and ``find_if_not`` variants fail the check too when the rewrite swaps the
    bounds of the run (and the head test of a prefix for the element after it)."""
    right = sorted_linear_scan._call_edit

    def wrong(inp: object, c: object) -> Edit:
        e = right(inp, c)  # type: ignore[arg-type]
        swapped = e.text.replace("lower_bound", "LB").replace("upper_bound", "lower_bound") \
            .replace("LB", "upper_bound").replace("? v.begin() :", "? v.begin() + 1 :")
        return Edit(e.start, e.end, swapped, e.rule)

    monkeypatch.setattr(sorted_linear_scan, "_call_edit", wrong)
    rnd = random.Random(7)
    variants = [_variant(rnd, f"broken{k}", form, cxx20=True) for k in range(8)]
    with pytest.raises(AssertionError) as failed:
        compare(variants, RULES, tmp_path, std="c++20")
    # both builds went through: what failed is the comparison of their outputs
    assert "error:" not in str(failed.value), str(failed.value)[:2000]


def _site(code: str, name: str = "f"):  # type: ignore[no-untyped-def]
    return function_by_name(_PRELUDE + code, "cpp", name)


def _found(code: str) -> list[str]:
    return [f.explanation for f in analyze(_site(code)) if f.rule == RULE]


def test_a_count_in_a_query_loop_becomes_the_width_of_a_run() -> None:
    code = ("long long f(std::vector<int> v, const std::vector<int>& qs) {\n"
            "    std::sort(v.begin(), v.end());\n    long long total = 0;\n"
            "    for (int q : qs) total += std::count(v.begin(), v.end(), q);\n"
            "    return total;\n}\n")
    found = _found(code)
    assert len(found) == 1 and "O(q·log n)" in found[0] and "equal_range" in found[0]
    res = rewrite(_site(code), RULES)
    assert "total += (std::upper_bound(v.begin(), v.end(), q) - " \
        "std::lower_bound(v.begin(), v.end(), q));" in res.code, res.code
    # the call belongs to this rule, not to the hash-set advice for linear searches in loops
    rules = {f.rule for f in analyze(_site(code))}
    assert "linear-search-in-loop" not in rules and "count-table" not in rules
    unsorted = code.replace("    std::sort(v.begin(), v.end());\n", "")
    rules = {f.rule for f in analyze(_site(unsorted))}
    # unsorted, the values are counted into a table once (the count-table rule)
    assert RULE not in rules and "count-table" in rules


@pytest.mark.parametrize(("call", "sort", "expect"), [
    ("std::count_if(v.begin(), v.end(), [q](int x) { return x < q; })", "",
     "(std::lower_bound(v.begin(), v.end(), q) - v.begin())"),
    ("std::count_if(v.cbegin(), v.cend(), [&](auto x) { return x <= q; })", "",
     "(std::upper_bound(v.cbegin(), v.cend(), q) - v.cbegin())"),
    ("std::count_if(v.begin(), v.end(), [=](const int& x) { return q < x; })", "",
     "(v.end() - std::upper_bound(v.begin(), v.end(), q))"),
    ("std::count_if(std::begin(v), std::end(v), [q](int x) { return x != q; })", "",
     "((std::end(v) - std::begin(v)) - (std::upper_bound(std::begin(v), std::end(v), q) - "
     "std::lower_bound(std::begin(v), std::end(v), q)))"),
    ("std::count(v.begin(), v.end(), q)", ", std::greater<>()",
     "(std::upper_bound(v.begin(), v.end(), q, std::greater<>()) - "
     "std::lower_bound(v.begin(), v.end(), q, std::greater<>()))"),
    ("std::count_if(v.begin(), v.end(), [q](int x) { return x > q; })", ", std::greater<int>()",
     "(std::lower_bound(v.begin(), v.end(), q, std::greater<>()) - v.begin())"),
    ("(std::find(v.begin(), v.end(), q) - v.begin())", "",
     "(std::binary_search(v.begin(), v.end(), q) ? std::lower_bound(v.begin(), v.end(), q) : "
     "v.end())"),
    ("(std::find_if(v.begin(), v.end(), [q](int x) { return x >= q; }) - v.begin())", "",
     "(std::lower_bound(v.begin(), v.end(), q) - v.begin())"),
    ("(std::find_if(v.begin(), v.end(), [q](int x) { return x < q; }) - v.begin())", "",
     "(v.begin() != v.end() && *v.begin() < q ? v.begin() : v.end())"),
    ("(std::find(v.cbegin(), v.cend(), q) != v.cend())", "",
     "(std::binary_search(v.cbegin(), v.cend(), q))"),
    ("(v.end() == std::find(v.begin(), v.end(), q))", "",
     "(!std::binary_search(v.begin(), v.end(), q))"),
])
def test_each_call_finds_its_bound(call: str, sort: str, expect: str) -> None:
    code = (f"long f(std::vector<int> v, int q) {{ std::sort(v.begin(), v.end(){sort}); "
            f"return {call}; }}")
    res = rewrite(_site(code), RULES)
    assert RULE in res.rules, res.notes
    assert expect in res.code, res.code


def test_a_kept_find_is_one_search_then_the_end_when_it_is_no_match() -> None:
    code = ("int f(std::vector<std::string> v, const std::vector<std::string>& qs) {\n"
            "    std::sort(v.begin(), v.end());\n    int c = 0;\n"
            "    for (const auto& q : qs) {\n"
            "        std::vector<std::string>::iterator it = std::find(v.begin(), v.end(), q);\n"
            "        if (it != v.end()) c += (int)(it - v.begin()) + (int)it->size();\n"
            "    }\n    return c;\n}\n")
    res = rewrite(_site(code), RULES)
    assert "std::vector<std::string>::iterator it = std::lower_bound(v.begin(), v.end(), q);\n"\
        "        if (it != v.end() && !(*it == q)) it = v.end();" in res.code, res.code


def test_a_string_literal_is_looked_up_as_a_string() -> None:
    code = ("long f(std::vector<std::string> v) { std::sort(v.begin(), v.end()); "
            "return std::count(v.begin(), v.end(), \"abc\"); }")
    res = rewrite(_site(code), RULES)
    assert 'std::upper_bound(v.begin(), v.end(), "abc")' in res.code, res.code


_TAIL = "return std::count(v.begin(), v.end(), q); }"


@pytest.mark.parametrize(("code", "why"), [
    # never sorted, sorted in part, counted in part
    ("long f(std::vector<int> v, int q) { " + _TAIL, ""),
    ("long f(std::vector<int> v, int q) { std::sort(v.begin(), v.begin() + 3); " + _TAIL, ""),
    ("long f(std::vector<int> v, int q) { std::sort(v.begin(), v.end()); "
     "return std::count(v.begin() + 1, v.end(), q); }", ""),
    # the sort on one path only, or after the call
    ("long f(std::vector<int> v, int q, bool s) { if (s) std::sort(v.begin(), v.end()); "
     + _TAIL, ""),
    ("long f(std::vector<int> v, int q) { long c = std::count(v.begin(), v.end(), q); "
     "std::sort(v.begin(), v.end()); return c; }", ""),
    # written between the sort and the call
    ("long f(std::vector<int> v, int q) { std::sort(v.begin(), v.end()); v.push_back(q); "
     + _TAIL, "change"),
    ("long f(std::vector<int> v, int q) { std::sort(v.begin(), v.end()); v[0] = q; " + _TAIL,
     "change"),
    ("long f(std::vector<int> v, const std::vector<int>& qs) { std::sort(v.begin(), v.end()); "
     "long c = 0; for (int q : qs) { c += std::count(v.begin(), v.end(), q); v.push_back(q); } "
     "return c; }", "change"),
    # in the same full-expression, unsequenced with the call
    ("long f(std::vector<int> v, int q) { std::sort(v.begin(), v.end()); "
     "return std::count(v.begin(), v.end(), q) + (v.push_back(1), 0); }", "change"),
    # passed by non-const reference to code the analysis cannot see
    ("void g(std::vector<int>&);\nlong f(std::vector<int> v, int q) { "
     "std::sort(v.begin(), v.end()); g(v); " + _TAIL, "pointer"),
    ("void g();\nlong f(std::vector<int>& v, int q) { std::sort(v.begin(), v.end()); g(); "
     + _TAIL, "parameter"),
    # a comparator that is not the natural order or its reverse
    ("long f(std::vector<int> v, int q) { std::sort(v.begin(), v.end(), [](int a, int b) "
     "{ return a % 10 < b % 10; }); " + _TAIL, ""),
    ("long f(std::vector<int> v, int q) { std::sort(v.begin(), v.end(), std::less<long>()); "
     + _TAIL, ""),
    # floating elements: a NaN is ordered with nothing
    ("long f(std::vector<double> v, double q) { std::sort(v.begin(), v.end()); " + _TAIL,
     "not integers or strings"),
    ("long f(std::vector<float> v, float q) { std::sort(v.begin(), v.end()); "
     "return std::count_if(v.begin(), v.end(), [q](float x) { return x < q; }); }",
     "not integers"),
    ("long f(std::vector<int> v, double q) { std::sort(v.begin(), v.end()); " + _TAIL,
     "integer"),
    # signed elements looked up with an unsigned value: converted, out of order
    ("long f(std::vector<int> v, unsigned q) { std::sort(v.begin(), v.end()); " + _TAIL,
     "unsigned"),
    # predicates whose matches are not one run of the order
    ("long f(std::vector<int> v) { std::sort(v.begin(), v.end()); "
     "return std::count_if(v.begin(), v.end(), [](int x) { return x % 2 == 0; }); }",
     "one run"),
    ("long f(std::vector<int> v, int q) { std::sort(v.begin(), v.end()); "
     "return std::find_if(v.begin(), v.end(), [q](int x) { return x != q; }) - v.begin(); }",
     "differs"),
    ("bool odd(int);\nlong f(std::vector<int> v) { std::sort(v.begin(), v.end()); "
     "return std::count_if(v.begin(), v.end(), odd); }", "lambda"),
    ("long f(std::vector<int> v, int q) { std::sort(v.begin(), v.end()); "
     "return std::count_if(v.begin(), v.end(), [q](int x) { return x * x < q; }); }",
     "one run"),
    # a predicate that converts the elements, or captures more than names
    ("long f(std::vector<long> v, int q) { std::sort(v.begin(), v.end()); "
     "return std::count_if(v.begin(), v.end(), [q](int x) { return x < q; }); }", "converts"),
    ("long f(std::vector<int> v, int q) { std::sort(v.begin(), v.end()); "
     "return std::count_if(v.begin(), v.end(), [r = q + 1](int x) { return x < r; }); }",
     "captures"),
    # the value changes in the statement, or is not a plain value
    ("long f(std::vector<int> v, int q) { std::sort(v.begin(), v.end()); "
     "return std::count(v.begin(), v.end(), q) + q++; }", "changes"),
    ("int g(int);\nlong f(std::vector<int> v, int q) { std::sort(v.begin(), v.end()); "
     "return std::count(v.begin(), v.end(), g(q)); }", "calls"),
    # the position found is written through, and a loop runs the search again
    ("long f(std::vector<int> v, const std::vector<int>& qs) { std::sort(v.begin(), v.end()); "
     "long c = 0; for (int q : qs) { auto it = std::find(v.begin(), v.end(), q); "
     "if (it != v.end()) { *it = 0; ++c; } } return c; }", "kept"),
    # for a parameter, a call on the way that may run code of the program (a function pointer)
    ("bool (*pred)(int);\nlong f(std::vector<int> v, const std::vector<int>& qs) { "
     "std::sort(v.begin(), v.end()); long t = 0; for (int q : qs) "
     "t += std::count(v.begin(), v.end(), q) + std::count_if(qs.begin(), qs.end(), pred); "
     "return t; }", "parameter"),
    # a user function named count
    ("long count(std::vector<int>::iterator, std::vector<int>::iterator, int);\n"
     "long f(std::vector<int> v, int q) { std::sort(v.begin(), v.end()); "
     "return count(v.begin(), v.end(), q); }", ""),
])
def test_left_alone(code: str, why: str) -> None:
    res = rewrite(_site(code), RULES)
    assert not res.changed, res.code
    assert not _found(code), code
    if why:
        assert any(why in n for n in res.notes), res.notes


@pytest.mark.parametrize("code", [
    # a position kept only for reading may sit in a query loop
    "long f(std::vector<int> v, const std::vector<int>& qs) { std::sort(v.begin(), v.end()); "
    "long c = 0; for (int q : qs) { auto it = std::find(v.begin(), v.end(), q); "
    "if (it != v.end()) c += *it + (it - v.begin()); } return c; }",
    # written through once, with no loop to run the search again
    "long f(std::vector<int> v, int q) { std::sort(v.begin(), v.end()); "
    "auto it = std::find(v.begin(), v.end(), q); if (it != v.end()) *it = 0; "
    "return v[0]; }",
    # for a parameter, other standard algorithms that only read, and lambdas that only compare,
    # run between the calls of a query loop
    "long f(std::vector<int> v, const std::vector<int>& qs, const std::vector<std::string>& w) "
    "{ std::sort(v.begin(), v.end()); long t = 0; for (int q : qs) "
    "t += std::count(v.begin(), v.end(), q) + std::count_if(v.cbegin(), v.cend(), "
    "[q](int x) { return x < q; }) + std::count(w.begin(), w.end(), \"a\"); return t; }",
    # a local container, an unknown call on the way that cannot reach it
    "void g();\nlong f(const std::vector<int>& w, int q) { std::vector<int> v(w); "
    "std::sort(v.begin(), v.end()); g(); " + _TAIL,
])
def test_positions_kept_safely_are_rewritten(code: str) -> None:
    res = rewrite(_site(code), RULES)
    assert RULE in res.rules and not res.notes, (res.code, res.notes)


def test_a_position_written_through_ends_the_order_for_later_calls() -> None:
    code = ("long f(std::vector<int> v, int a, int b) { std::sort(v.begin(), v.end()); "
            "auto it = std::find(v.begin(), v.end(), a); if (it != v.end()) *it = 100; "
            "return std::count(v.begin(), v.end(), b); }")
    res = rewrite(_site(code), RULES)
    # the find itself runs on sorted data; the count after the write does not
    assert "auto it = std::lower_bound(v.begin(), v.end(), a);" in res.code, res.code
    assert "return std::count(v.begin(), v.end(), b);" in res.code
    assert any("std::count" in n and "iterator" in n for n in res.notes), res.notes


@pytest.mark.parametrize(("sort", "call", "expect"), [
    # ``std::ranges`` searches over all of the container become the classic iterator forms,
    # which name the same positions under any standard
    ("std::ranges::sort(v);", "std::ranges::count(v, q)",
     "(std::upper_bound(v.begin(), v.end(), q) - std::lower_bound(v.begin(), v.end(), q))"),
    ("std::sort(v.begin(), v.end());", "(std::ranges::find(v, q) - v.begin())",
     "(std::binary_search(v.begin(), v.end(), q) ? std::lower_bound(v.begin(), v.end(), q) : "
     "v.end())"),
    ("std::ranges::sort(v, std::greater{});", "(std::ranges::find(v, q) != v.end())",
     "(std::binary_search(v.begin(), v.end(), q, std::greater<>()))"),
    ("std::ranges::sort(v, std::greater<>());", "(v.cend() == std::ranges::find(v, q))",
     "(!std::binary_search(v.begin(), v.end(), q, std::greater<>()))"),
    ("std::ranges::stable_sort(v, std::ranges::less{});", "std::ranges::count(v, q)",
     "(std::upper_bound(v.begin(), v.end(), q) - std::lower_bound(v.begin(), v.end(), q))"),
    # ``find_if_not`` finds the first element passing the negated comparison
    ("std::sort(v.begin(), v.end());",
     "(std::find_if_not(v.begin(), v.end(), [q](int x) { return x < q; }) - v.begin())",
     "(std::lower_bound(v.begin(), v.end(), q) - v.begin())"),
    ("std::sort(v.begin(), v.end());",
     "(std::find_if_not(v.begin(), v.end(), [q](int x) { return x <= q; }) - v.begin())",
     "(std::upper_bound(v.begin(), v.end(), q) - v.begin())"),
    ("std::sort(v.begin(), v.end());",
     "(std::find_if_not(v.cbegin(), v.cend(), [&](auto x) { return x >= q; }) - v.cbegin())",
     "(v.cbegin() != v.cend() && *v.cbegin() < q ? v.cbegin() : v.cend())"),
    ("std::sort(v.begin(), v.end());",
     "(std::find_if_not(v.begin(), v.end(), [q](int x) { return x != q; }) != v.end())",
     "(std::binary_search(v.begin(), v.end(), q))"),
    ("std::sort(v.begin(), v.end(), std::greater<>());",
     "(std::find_if_not(v.begin(), v.end(), [q](int x) { return q < x; }) - v.begin())",
     "(std::lower_bound(v.begin(), v.end(), q, std::greater<>()) - v.begin())"),
    # a ranges sort orders the classic calls too
    ("std::ranges::sort(v);", "(std::find(v.begin(), v.end(), q) == v.end())",
     "(!std::binary_search(v.begin(), v.end(), q))"),
])
def test_ranges_and_find_if_not_find_their_bound(sort: str, call: str, expect: str) -> None:
    code = f"long f(std::vector<int> v, int q) {{ {sort} return {call}; }}"
    res = rewrite(_site(code), RULES)
    assert RULE in res.rules, res.notes
    assert expect in res.code, res.code
    assert "ranges::count" not in res.code and "ranges::find" not in res.code and \
        "find_if_not" not in res.code


def test_a_kept_ranges_find_is_one_search_then_the_end_when_it_is_no_match() -> None:
    code = ("long f(std::vector<long> v, const std::vector<long>& qs) { std::ranges::sort(v); "
            "long c = 0; for (long q : qs) {\n        auto it = std::ranges::find(v, q);\n"
            "        if (it != v.end()) c += *it + (it - v.begin());\n    }\n    return c; }")
    res = rewrite(_site(code), RULES)
    assert "auto it = std::lower_bound(v.begin(), v.end(), q);\n"\
        "        if (it != v.end() && !(*it == q)) it = v.end();" in res.code, res.code


_RANGES_TAIL = "return std::ranges::count(v, q); }"
_NOT_TAIL = ("return std::find_if_not(v.begin(), v.end(), [q](int x) { return x < q; }) - "
             "v.begin(); }")


@pytest.mark.parametrize(("code", "why"), [
    # never sorted, sorted in part, sorted by projection or an unknown order
    ("long f(std::vector<int> v, int q) { " + _RANGES_TAIL, ""),
    ("long f(std::vector<int> v, int q) { " + _NOT_TAIL, ""),
    ("long f(std::vector<int> v, int q) { std::sort(v.begin(), v.begin() + 3); "
     + _RANGES_TAIL, ""),
    ("long f(std::vector<int> v, int q) { std::sort(v.begin() + 1, v.end()); " + _NOT_TAIL, ""),
    ("long f(std::vector<int> v, int q) { std::ranges::sort(v.begin(), v.begin() + 3); "
     + _RANGES_TAIL, ""),
    ("long f(std::vector<int> v, int q) { std::ranges::sort(v, {}, [](int x) { return -x; }); "
     + _RANGES_TAIL, ""),
    ("long f(std::vector<int> v, int q) { std::ranges::sort(v, [](int a, int b) "
     "{ return a % 10 < b % 10; }); " + _RANGES_TAIL, ""),
    ("long f(std::vector<int> v, std::vector<int> w, int q) { std::ranges::sort(w); "
     + _RANGES_TAIL, ""),
    # searched in part, or through a projection
    ("long f(std::vector<int> v, int q) { std::ranges::sort(v); "
     "return std::ranges::count(v.begin() + 1, v.end(), q); }", ""),
    ("long f(std::vector<int> v, int q) { std::ranges::sort(v); "
     "return std::ranges::count(v, q, [](int x) { return -x; }); }", ""),
    ("long f(std::vector<int> v, int q) { std::sort(v.begin(), v.end()); "
     "return std::find_if_not(v.begin() + 1, v.end(), [q](int x) { return x < q; }) - "
     "v.begin(); }", ""),
    # the sort on one path only
    ("long f(std::vector<int> v, int q, bool s) { if (s) std::ranges::sort(v); "
     + _RANGES_TAIL, ""),
    # written between the sort and the call, or in the same full-expression
    ("long f(std::vector<int> v, int q) { std::ranges::sort(v); v.push_back(q); "
     + _RANGES_TAIL, "change"),
    ("long f(std::vector<int> v, int q) { std::sort(v.begin(), v.end()); v[0] = q; "
     + _NOT_TAIL, "change"),
    ("long f(std::vector<int> v, int q) { std::ranges::sort(v); std::ranges::reverse(v); "
     + _RANGES_TAIL, "change"),
    ("long f(std::vector<int> v, const std::vector<int>& qs) { std::ranges::sort(v); "
     "long c = 0; for (int q : qs) { c += std::ranges::find(v, q) - v.begin(); "
     "v.push_back(q); } return c; }", "change"),
    ("long f(std::vector<int> v, int q) { std::ranges::sort(v); "
     "return std::ranges::count(v, q) + (v.push_back(1), 0); }", "change"),
    ("void g(std::vector<int>&);\nlong f(std::vector<int> v, int q) { std::ranges::sort(v); "
     "g(v); " + _RANGES_TAIL, "pointer"),
    # floating elements, or a value converted out of the elements' order
    ("long f(std::vector<double> v, double q) { std::ranges::sort(v); " + _RANGES_TAIL,
     "not integers or strings"),
    ("long f(std::vector<float> v, float q) { std::sort(v.begin(), v.end()); "
     "return std::find_if_not(v.begin(), v.end(), [q](float x) { return x < q; }) - "
     "v.begin(); }", "not integers"),
    ("long f(std::vector<int> v, unsigned q) { std::ranges::sort(v); " + _RANGES_TAIL,
     "unsigned"),
    # predicates whose failures are not one run, or whose first failure is not one search
    ("long f(std::vector<int> v) { std::sort(v.begin(), v.end()); "
     "return std::find_if_not(v.begin(), v.end(), [](int x) { return x % 2 == 0; }) - "
     "v.begin(); }", "one run"),
    ("long f(std::vector<int> v, int q) { std::sort(v.begin(), v.end()); "
     "return std::find_if_not(v.begin(), v.end(), [q](int x) { return x == q; }) - "
     "v.begin(); }", "differs"),
    ("bool odd(int);\nlong f(std::vector<int> v) { std::sort(v.begin(), v.end()); "
     "return std::find_if_not(v.begin(), v.end(), odd) - v.begin(); }", "lambda"),
    ("long f(std::vector<long> v, int q) { std::sort(v.begin(), v.end()); "
     "return std::find_if_not(v.begin(), v.end(), [q](int x) { return x < q; }) - "
     "v.begin(); }", "converts"),
    # the position found is written through, and a loop runs the search again
    ("long f(std::vector<int> v, const std::vector<int>& qs) { std::ranges::sort(v); "
     "long c = 0; for (int q : qs) { auto it = std::ranges::find(v, q); "
     "if (it != v.end()) { *it = 0; ++c; } } return c; }", "kept"),
    # a ``ranges`` namespace of the program's own
    ("namespace my { namespace ranges { long count(std::vector<int>&, int); } }\n"
     "long f(std::vector<int> v, int q) { std::ranges::sort(v); "
     "return my::ranges::count(v, q); }", ""),
])
def test_ranges_and_find_if_not_left_alone(code: str, why: str) -> None:
    res = rewrite(_site(code), RULES)
    assert not res.changed, res.code
    assert not _found(code), code
    if why:
        assert any(why in n for n in res.notes), res.notes


def test_a_ranges_find_kept_for_reading_leaves_other_calls_in_the_loop_free() -> None:
    code = ("long f(std::vector<int> v, const std::vector<int>& qs) { std::ranges::sort(v); "
            "long c = 0; for (int q : qs) { auto a = std::ranges::find(v, q); "
            "c += std::ranges::count(v, 5) + (a - v.begin()); } return c; }")
    res = rewrite(_site(code), RULES)
    assert RULE in res.rules and not res.notes, (res.code, res.notes)
    assert "ranges::" not in res.code.replace("std::ranges::sort(v);", ""), res.code
