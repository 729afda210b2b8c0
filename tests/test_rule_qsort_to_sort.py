"""qsort-to-sort: ``qsort`` over integers with a comparator proved to order them by value
becomes ``std::sort`` (checked over generated element types, comparator forms, orders and
arrays, built and run both ways); other comparators, element types and C stay."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from differential_support import HAVE_GXX, Variant, compare
from perfpilot.code.locate import function_by_name
from perfpilot.optimizing.builtin import rewrite
from perfpilot.planning.builtin import analyze

RULES = frozenset({"qsort-to-sort"})
_TYPES = ("int", "short", "unsigned char", "long", "long long", "unsigned", "char")
_SMALL = ("int", "short", "unsigned char", "char")  # a difference of two fits an int


def _cmp_body(t: str, desc: bool, form: int, sub_ok: bool) -> str:
    """A comparator body over parameters ``p``, ``q`` in one of several equivalent forms."""
    a, b = ("y", "x") if desc else ("x", "y")
    load = f"{t} x = *(const {t}*)p; {t} y = *(const {t}*)q;"
    if form == 0:
        return f"{load} return ({a} > {b}) - ({a} < {b});"
    if form == 1 and sub_ok:
        return f"return *({t}*){'q' if desc else 'p'} - *({t}*){'p' if desc else 'q'};"
    if form == 2:
        return (f"const {t}* pa = static_cast<const {t}*>(p); const {t}* pb = "
                f"static_cast<const {t}*>(q); if (*pa < *pb) return {1 if desc else -1}; "
                f"else if (*pa > *pb) return {-1 if desc else 1}; return 0;")
    if form == 3:
        return f"{load} return {a} < {b} ? -1 : ({a} == {b} ? 0 : 1);"
    return (f"{load} if ({a} == {b}) return 0; if ({b} < {a}) {{ return 1; }} else "
            "{ return -1; }")


def _variants(count: int, seed: int) -> list[Variant]:
    rnd = random.Random(seed)
    out: list[Variant] = []
    for n in range(count):
        t = rnd.choice(_TYPES)
        desc = rnd.random() < 0.4
        body = _cmp_body(t, desc, rnd.randrange(5), t in _SMALL)
        lam = rnd.random() < 0.25
        cmp = f"[](const void* p, const void* q) {{ {body} }}" if lam else f"cmp{n}"
        helper = "" if lam else f"static int cmp{n}(const void* p, const void* q) {{ {body} }}\n"
        form = rnd.randrange(3)
        call = rnd.choice(("std::qsort", "qsort"))
        name = f"sorted{n}"
        if form == 0:
            size = rnd.choice((f"sizeof({t})", "sizeof v[0]"))
            fn = (f"std::vector<long long> {name}(std::vector<{t}> v) {{\n"
                  f"    {call}(v.data(), v.size(), {size}, {cmp});\n"
                  "    return std::vector<long long>(v.begin(), v.end());\n}\n")
            arg = "in"
        elif form == 1:
            size = rnd.choice((f"sizeof({t})", "sizeof a[0]", "sizeof *a"))
            fn = (f"std::vector<long long> {name}(const std::vector<{t}>& in) {{\n"
                  f"    {t} a[64]; int m = 0;\n    for ({t} x : in) a[m++] = x;\n"
                  f"    {call}(a, m, {size}, {cmp});\n"
                  "    return std::vector<long long>(a, a + m);\n}\n")
            arg = "in"
        else:
            size = rnd.choice((f"sizeof({t})", "sizeof(*a)"))
            fn = (f"std::vector<long long> {name}({t}* a, int m) {{\n"
                  f"    {call}(a, m, {size}, {cmp});\n"
                  "    return std::vector<long long>(a, a + m);\n}\n")
            arg = "in.data(), (int)in.size()"
        driver = (f"for (int m : {{0, 1, 2, 9, 40}}) {{ std::vector<{t}> in; for (int k = 0; "
                  f"k < m; ++k) in.push_back(({t})((k * 37 + m) % 23 - 7)); "
                  f"for (long long d : {name}({arg})) std::printf(\"%lld \", d); "
                  "std::printf(\"\\n\"); }")
        out.append(Variant(name, helper + fn, driver))
    return out


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_generated_variants_keep_results(tmp_path: Path) -> None:
    variants = _variants(40, seed=3)
    results = compare(variants, RULES, tmp_path)
    for v in variants:
        res = results[v.name]
        assert res.rules >= RULES, (v.code, res.notes)
        assert "qsort" not in res.code and "std::sort(" in res.code, res.code


_CMP = "static int c(const void* p, const void* q) { %s }\n"


def _site(code: str, lang: str = "cpp"):  # type: ignore[no-untyped-def]
    return function_by_name("#include <cstdlib>\n#include <vector>\n" + code, lang, "f")


def test_finding_names_the_call_and_the_replacement() -> None:
    code = (_CMP % "int x = *(const int*)p, y = *(const int*)q; return (y > x) - (y < x);") + \
        "void f(int* a, int n) { qsort(a, n, sizeof *a, c); }"
    found = [f for f in analyze(_site(code)) if f.rule == "qsort-to-sort"]
    assert found and "std::sort(a, a + n, std::greater<int>())" in found[0].explanation
    res = rewrite(_site(code), RULES)
    assert "std::sort(a, a + n, std::greater<int>());" in res.code


@pytest.mark.parametrize("code", [
    # floating elements: -0.0 and 0.0 compare equal but differ, so the order of ties shows
    (_CMP % "double x = *(const double*)p, y = *(const double*)q; return (x > y) - (x < y);")
    + "void f(double* a, int n) { qsort(a, n, sizeof(double), c); }",
    # ordered by a key, not by the value
    (_CMP % "int x = *(const int*)p, y = *(const int*)q; return (x % 10) - (y % 10);")
    + "void f(int* a, int n) { qsort(a, n, sizeof(int), c); }",
    (_CMP % "int x = *(const int*)p, y = *(const int*)q; return (abs(x) > abs(y)) - "
     "(abs(x) < abs(y));") + "void f(int* a, int n) { qsort(a, n, sizeof(int), c); }",
    # an effect in the comparator
    "int calls;\n" + (_CMP % "++calls; return *(const int*)p - *(const int*)q;")
    + "void f(int* a, int n) { qsort(a, n, sizeof(int), c); }",
    # a difference that does not fit the int result (long, unsigned)
    (_CMP % "return *(const long*)p - *(const long*)q;")
    + "void f(long* a, int n) { qsort(a, n, sizeof(long), c); }",
    (_CMP % "return *(const unsigned*)p - *(const unsigned*)q;")
    + "void f(unsigned* a, int n) { qsort(a, n, sizeof(unsigned), c); }",
    # not a three-way result
    (_CMP % "return *(const int*)p < *(const int*)q;")
    + "void f(int* a, int n) { qsort(a, n, sizeof(int), c); }",
    # the comparator reads another type than the array holds, or the size disagrees
    (_CMP % "long x = *(const long*)p, y = *(const long*)q; return (x > y) - (x < y);")
    + "void f(int* a, int n) { qsort(a, n, sizeof(int), c); }",
    (_CMP % "int x = *(const int*)p, y = *(const int*)q; return (x > y) - (x < y);")
    + "void f(int* a, int n) { qsort(a, n / 2, 2 * sizeof(int), c); }",
    # a comparator only declared here
    "int c(const void*, const void*);\nvoid f(int* a, int n) { qsort(a, n, sizeof(int), c); }",
    # elements that are records
    "struct P { int k; };\n" + (_CMP % "return ((const P*)p)->k - ((const P*)q)->k;")
    + "void f(P* a, int n) { qsort(a, n, sizeof(P), c); }",
])
def test_left_alone(code: str) -> None:
    res = rewrite(_site(code), RULES)
    assert not res.changed, res.code
    assert "qsort-to-sort" not in {f.rule for f in analyze(_site(code))}


def test_c_keeps_qsort() -> None:
    code = (_CMP % "int x = *(const int*)p, y = *(const int*)q; return (x > y) - (x < y);") + \
        "void f(int* a, int n) { qsort(a, n, sizeof(int), c); }"
    site = function_by_name("#include <stdlib.h>\n" + code, "c", "f")
    assert not rewrite(site, RULES).changed
    assert "qsort-to-sort" not in {f.rule for f in analyze(site)}


def test_a_vector_whose_elements_go_to_qsort_stays_by_value() -> None:
    # const-ref-param must not make it const: qsort (or the std::sort replacing it) writes it
    code = (_CMP % "return *(const int*)p - *(const int*)q;") + \
        "int f(std::vector<int> v) { qsort(v.data(), v.size(), sizeof(int), c); return v[0]; }"
    res = rewrite(_site(code), frozenset({"const-ref-param", "qsort-to-sort"}))
    assert "std::vector<int> v)" in res.code and "std::sort(v.data()" in res.code, res.code
