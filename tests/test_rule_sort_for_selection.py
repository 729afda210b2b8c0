"""sort-for-selection: a local container sorted only to read one or two fixed positions gets
``std::nth_element`` (or ``std::min_element``/``std::max_element`` for the first and last).
Generated variants (element types with strings, copies and by-value parameters, both orders,
guards before and after the sort, sizes held in a variable, medians of odd and even sizes,
k-th elements out of range, empty and one-element containers) are built and run both ways;
containers the caller sees, other uses after the sort, other comparators and floating elements
are left alone."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from differential_support import HAVE_GXX, Variant, compare
from perfpilot.code.locate import function_by_name
from perfpilot.optimizing.builtin import rewrite
from perfpilot.planning.builtin import analyze

RULE = "sort-for-selection"
RULES = frozenset({RULE})
_PRELUDE = "#include <algorithm>\n#include <functional>\n#include <string>\n#include <vector>\n"
_TYPES = ("int", "long long", "unsigned", "short", "char", "std::string")


def _source(rnd: random.Random, t: str, name: str, extra: str) -> tuple[str, list[str]]:
    """The function's head and the statements that make ``v``: a by-value parameter or a
    local copy of the input."""
    form = rnd.randrange(4)
    ret = "std::string" if t == "std::string" else "long long"
    if form == 0:
        return f"{ret} {name}(std::vector<{t}> v{extra}) {{", []
    head = f"{ret} {name}(const std::vector<{t}>& in{extra}) {{"
    copy = (f"std::vector<{t}> v(in.begin(), in.end());", "auto v = in;",
            f"std::vector<{t}> v = in;")[form - 1]
    return head, [copy]


def _sort(rnd: random.Random, t: str) -> str:
    return rnd.choice(("std::sort(v.begin(), v.end());", "std::stable_sort(v.begin(), v.end());",
                       "std::sort(v.begin(), v.end(), std::less<>());",
                       "std::sort(v.begin(), v.end(), std::greater<>());",
                       f"std::sort(v.begin(), v.end(), std::greater<{t}>());"))


def _value(t: str, expr: str) -> str:
    return expr if t == "std::string" else f"(long long){expr}"


def _join(t: str, a: str, b: str) -> str:
    return f"{a} + \"|\" + {b}" if t == "std::string" else f"(long long){a} * 1000 + {b}"


def _variant(rnd: random.Random, name: str) -> Variant:
    t = rnd.choice(_TYPES)
    sentinel = '"none"' if t == "std::string" else "-99"
    shape = rnd.randrange(9)
    head, pre = _source(rnd, t, name, ", int k" if shape == 1 else "")
    alias = rnd.randrange(3)  # none, before the sort, after it
    n = "n" if alias else "v.size()"
    decl = rnd.choice(("int n = v.size();", "const std::size_t n = v.size();",
                       "const int n = static_cast<int>(v.size());"))
    guard = f"if (v.empty()) return {sentinel};"
    guard_first = rnd.random() < 0.5
    if shape == 0:
        half = rnd.choice((f"{n} / 2", f"{n} >> 1"))
        read = rnd.choice((f"v[{half}]", f"v.at({half})"))
        tail = [f"return {_value(t, read)};"]
    elif shape == 1:
        tail = [f"if (k < 0 || k >= (int)v.size()) return {sentinel};",
                f"return {_value(t, 'v[k]')};"]
    elif shape == 2:
        tail = [f"return {_value(t, rnd.choice((f'v[{n} * 3 / 4]', f'v[{n} / 4]')))};"]
    elif shape == 3:
        tail = [f"return {_value(t, rnd.choice(('v.back()', f'v[{n} - 1]')))};"]
    elif shape == 4:
        tail = [f"return {_value(t, rnd.choice(('v.front()', 'v[0]')))};"]
    elif shape == 5:
        tail = [f"return {_value(t, f'v[({n} - 1) / 2]')};"]
    elif shape == 6:
        tail = [f"if ({n} % 2 == 1) return {_value(t, f'v[{n} / 2]')};",
                f"return {_join(t, f'v[{n} / 2 - 1]', f'v[{n} / 2]')};"]
    elif shape == 7:
        tail = [f"if (v.size() < 3) return {sentinel};",
                f"return {_join(t, f'v[{n} / 2]', f'v[{n} / 2 + 1]')};"]
    else:
        tail = [f"return {_join(t, 'v.front()', 'v.back()')};"]
    body = [*pre]
    if guard_first:
        body.append(guard)
    if alias == 1:
        body.append(decl)
    body.append(_sort(rnd, t))
    if alias == 2:
        body.append(decl)
    if not guard_first:
        body.append(guard)
    code = "\n".join([head, *(f"    {s}" for s in body + tail), "}"]) + "\n"
    make = "std::to_string((k * 37 + m * 11) % 9 - 3)" if t == "std::string" else \
        f"({t})((k * 37 + m * 11) % 9 - 3)"
    show = "std::printf(\"%s \", r.c_str());" if t == "std::string" else \
        "std::printf(\"%lld \", r);"
    ks = "for (int k : {-1, 0, 1, m / 2, m - 1, m, m + 3}) " if shape == 1 else ""
    call = f"{name}(v, k)" if shape == 1 else f"{name}(v)"
    driver = (f"const int sizes[] = {{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 33}}; "
              f"for (int m : sizes) {{ std::vector<{t}> v; for (int k = 0; k < m; ++k) "
              f"v.push_back({make}); {ks}{{ auto r = {call}; {show} }} "
              "std::printf(\"\\n\"); }")
    return Variant(name, code, driver)


def _variants(count: int, seed: int) -> list[Variant]:
    rnd = random.Random(seed)
    return [_variant(rnd, f"pick{k}") for k in range(count)]


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_generated_variants_keep_results(tmp_path: Path) -> None:
    variants = _variants(80, seed=5)
    variants[0] = Variant(variants[0].name, "#include <functional>\n" + variants[0].code,
                          variants[0].driver)
    results = compare(variants, RULES, tmp_path)
    for v in variants:
        res = results[v.name]
        assert RULE in res.rules, (v.code, res.notes)
        assert "sort(" not in res.code, res.code
        assert "nth_element(" in res.code or "_element(" in res.code, res.code


def _site(code: str, name: str = "f"):  # type: ignore[no-untyped-def]
    return function_by_name(_PRELUDE + code, "cpp", name)


def _found(code: str) -> list[str]:
    return [f.explanation for f in analyze(_site(code)) if f.rule == RULE]


def test_a_median_gets_one_selection_and_a_neighbour() -> None:
    code = ("double f(std::vector<int> v) {\n    if (v.empty()) return 0.0;\n"
            "    std::sort(v.begin(), v.end());\n    int n = v.size();\n"
            "    if (n % 2 == 1) return v[n / 2];\n"
            "    return (v[n / 2 - 1] + v[n / 2]) / 2.0;\n}\n")
    found = _found(code)
    assert len(found) == 1 and "nth_element" in found[0] and "O(n log n)" in found[0]
    res = rewrite(_site(code), RULES)
    assert "std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());" in res.code
    assert "return (*std::max_element(v.begin(), v.begin() + n / 2) + v[n / 2]) / 2.0;" \
        in res.code, res.code
    assert "if (v.empty()) return 0.0;" in res.code and "std::sort" not in res.code


def test_a_kth_element_is_clamped_at_the_selection() -> None:
    code = ("int f(const std::vector<int>& in, int k) { std::vector<int> v = in; "
            "std::sort(v.begin(), v.end(), std::greater<int>()); "
            "if (k < 0 || k >= (int)v.size()) return -1; return v[k]; }")
    res = rewrite(_site(code), RULES)
    assert ("std::nth_element(v.begin(), v.begin() + std::min<std::size_t>(k, v.size()), "
            "v.end(), std::greater<int>());") in res.code, res.code


def test_the_extremes_need_no_selection() -> None:
    code = ("int f(std::vector<int> v) { std::sort(v.begin(), v.end()); "
            "if (v.empty()) return 0; return v.back() - v.front(); }")
    res = rewrite(_site(code), RULES)
    assert "sort" not in res.code
    assert "return *std::max_element(v.begin(), v.end()) - " \
        "*std::min_element(v.begin(), v.end());" in res.code, res.code


def test_floating_elements_are_advised_but_kept() -> None:
    code = ("double f(std::vector<double> v) { std::sort(v.begin(), v.end()); "
            "return v[v.size() / 2]; }")
    found = _found(code)
    assert found and "-0.0" in found[0]
    res = rewrite(_site(code), RULES)
    assert not res.changed and any("floating" in n for n in res.notes)


_MID = "return v[v.size() / 2]; }"


@pytest.mark.parametrize(("code", "why"), [
    # the caller's container: the caller sees the order
    ("int f(std::vector<int>& v) { std::sort(v.begin(), v.end()); " + _MID, "caller"),
    ("std::vector<int> g;\nint f() { std::sort(g.begin(), g.end()); "
     "return g[g.size() / 2]; }", ""),
    ("int f(std::vector<int> v) { static std::vector<int> w; w = v; "
     "std::sort(w.begin(), w.end()); return w[w.size() / 2]; }", "caller"),
    # other uses after the sort: iteration, a return of it, a call with it, a write, a copy
    ("int f(std::vector<int> v) { std::sort(v.begin(), v.end()); int s = v[v.size() / 2]; "
     "for (int x : v) s += x; return s; }", ""),
    ("std::vector<int> f(std::vector<int> v) { std::sort(v.begin(), v.end()); "
     "return v; }", ""),
    ("int g(const std::vector<int>&);\nint f(std::vector<int> v) { "
     "std::sort(v.begin(), v.end()); return g(v) + v[0]; }", ""),
    ("int f(std::vector<int> v) { std::sort(v.begin(), v.end()); v[0] = 5; " + _MID, ""),
    ("int f(std::vector<int> v) { std::sort(v.begin(), v.end()); int s = 0; "
     "for (std::size_t i = 0; i < v.size(); ++i) s += v[i] * (int)i; return s; }", ""),
    ("int f(std::vector<int> v) { std::sort(v.begin(), v.end()); "
     "return *std::lower_bound(v.begin(), v.end(), 3); }", ""),
    # three positions: more than one selection gives
    ("int f(std::vector<int> v) { std::sort(v.begin(), v.end()); "
     "return v[0] + v[v.size() / 2] + v.back(); }", "positions"),
    # a position that changes after the sort
    ("int f(std::vector<int> v, int k) { std::sort(v.begin(), v.end()); k++; "
     "return v[k]; }", ""),
    # an alias, a pointer or an iterator kept from before
    ("int f(std::vector<int> v) { int* p = v.data(); std::sort(v.begin(), v.end()); "
     "return p[1] + v[v.size() / 2]; }", "pointer"),
    ("int f(std::vector<int> v) { auto& w = v; std::sort(v.begin(), v.end()); "
     "return w[1] + v[v.size() / 2]; }", "pointer"),
    # another order
    ("int f(std::vector<int> v) { std::sort(v.begin(), v.end(), [](int a, int b) "
     "{ return a % 7 < b % 7; }); " + _MID, ""),
    # the sort may not have run where the element is read
    ("int f(std::vector<int> v, bool s) { if (s) std::sort(v.begin(), v.end()); " + _MID, ""),
    ("int f(std::vector<int> v, bool s) { if (s) { std::sort(v.begin(), v.end()); } "
     + _MID, ""),
    # a loop keeps the container from one sort to the next
    ("int f(const std::vector<int>& in) { std::vector<int> v; int s = 0; "
     "for (int x : in) { v.push_back(x); std::sort(v.begin(), v.end()); "
     "s += v[v.size() / 2]; } return s; }", "loop"),
    # declared in a for header: one container for every iteration, whose update sees the order
    ("int f(std::vector<int> in) { int s = 0; for (std::vector<int> v = in; v.size() > 1; "
     "v.pop_back()) { std::sort(v.begin(), v.end()); s += v[v.size() / 2]; } return s; }",
     "loop"),
    # elements that are records
    ("struct P { int a; bool operator<(const P& o) const { return a < o.a; } };\n"
     "int f(std::vector<P> v) { std::sort(v.begin(), v.end()); "
     "return v[v.size() / 2].a; }", ""),
])
def test_left_alone(code: str, why: str) -> None:
    assert not _found(code), code
    res = rewrite(_site(code), RULES)
    assert not res.changed, res.code
    if why:
        assert any(why in n for n in res.notes), res.notes


def test_a_read_a_loop_repeats_keeps_a_selection_not_a_scan() -> None:
    code = ("long long f(std::vector<int> v, int m) { std::sort(v.begin(), v.end()); "
            "long long s = 0; for (int i = 0; i < m; ++i) s += v.back() * i; return s; }")
    res = rewrite(_site(code), RULES)
    assert "std::nth_element(" in res.code and "max_element" not in res.code, res.code
