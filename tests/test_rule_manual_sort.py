"""manual-sort: textbook quadratic sorts of a whole range (bubble with or without a flag,
selection, insertion by shifts or swaps, odd-even, comb) become a library sort that leaves the
same order, proved by their shape; near misses stay, each with a note on why."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from differential_support import HAVE_GXX, Variant, compare
from perfpilot.code.locate import function_by_name
from perfpilot.optimizing.builtin import rewrite
from perfpilot.planning.builtin import analyze_site
from perfpilot.rules.finding import Finding
from perfpilot.rules.sorting.manual_sort import HandSort, SortLikeLoops

RULES = frozenset({"manual-sort"})
HEADERS = "#include <string>\n#include <utility>\n#include <vector>\n"

FLAG_BUBBLE = """
void {f}(std::vector<{t}>& v) {{
    bool swapped = true;
    while (swapped) {{
        swapped = false;
        for (std::size_t i = 0; i + 1 < v.size(); ++i)
            if (v[i] {gt} v[i + 1]) {{
                std::swap(v[i], v[i + 1]);
                swapped = true;
            }}
    }}
}}
"""
DO_BUBBLE = """
void {f}(std::vector<{t}>& v) {{
    bool swapped;
    do {{
        swapped = false;
        for (std::size_t i = 0; i < v.size() - 1; ++i)
            if (v[i] {gt} v[i + 1]) {{
                swapped = true;
                {t} tmp = v[i];
                v[i] = v[i + 1];
                v[i + 1] = tmp;
            }}
    }} while (swapped);
}}
"""
ODD_EVEN = """
void {f}({t} *a, int n) {{
    bool sorted = false;
    while (!sorted) {{
        sorted = true;
        for (int i = 1; i + 1 < n; i += 2)
            if (a[i] {gt} a[i + 1]) {{
                std::swap(a[i], a[i + 1]);
                sorted = false;
            }}
        for (int i = 0; i + 1 < n; i += 2)
            if (a[i] {gt} a[i + 1]) {{
                std::swap(a[i], a[i + 1]);
                sorted = false;
            }}
    }}
}}
"""
COMB = """
void {f}(std::vector<{t}>& v) {{
    std::size_t gap = v.size();
    bool swapped = true;
    while (gap > 1 || swapped) {{
        gap = gap * 10 / 13;
        if (gap < 1) gap = 1;
        swapped = false;
        for (std::size_t i = 0; i + gap < v.size(); ++i)
            if (v[i] {gt} v[i + gap]) {{
                std::swap(v[i], v[i + gap]);
                swapped = true;
            }}
    }}
}}
"""
INSERTION = """
void {f}(std::vector<{t}>& v) {{
    for (int i = 1; i < (int)v.size(); ++i) {{
        {t} key = v[i];
        int j = i - 1;
        while (j >= 0 && v[j] {gt} key) {{
            v[j + 1] = v[j];
            --j;
        }}
        v[j + 1] = key;
    }}
}}
"""
INSERTION_SWAPS = """
void {f}({t} *a, int n) {{
    for (int i = 1; i < n; ++i)
        for (int j = i; j > 0 && a[j - 1] {gt} a[j]; --j)
            std::swap(a[j - 1], a[j]);
}}
"""
SHAPES = {"flag": FLAG_BUBBLE, "do": DO_BUBBLE, "odd-even": ODD_EVEN, "comb": COMB,
          "insertion": INSERTION, "insertion-swaps": INSERTION_SWAPS}


def _driver(name: str, shape: str, t: str, rnd: random.Random) -> str:
    n = rnd.choice((0, 1, 2, 7, 33))
    values = ", ".join(str(rnd.randint(-5, 5)) for _ in range(n))
    show = "std::printf(\"%lld \", (long long)x);"
    if shape in ("odd-even", "insertion-swaps"):
        return (f"{{ std::vector<{t}> v = {{{values}}}; {name}(v.data(), (int)v.size()); "
                f"for ({t} x : v) {show} std::printf(\"\\n\"); }}")
    return (f"{{ std::vector<{t}> v = {{{values}}}; {name}(v); "
            f"for ({t} x : v) {show} std::printf(\"\\n\"); }}")


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_textbook_sorts_keep_results(tmp_path: Path) -> None:
    rnd = random.Random(5)
    variants: list[Variant] = []
    for k, (shape, tpl) in enumerate(sorted(SHAPES.items()) * 2):
        t = rnd.choice(("int", "long", "short"))
        gt = ">" if k % 3 else "<"  # descending now and then
        name = f"s{k}"
        driver = " ".join(_driver(name, shape, t, rnd) for _ in range(4))
        variants.append(Variant(name, tpl.format(f=name, t=t, gt=gt), driver))
    results = compare(variants, RULES, tmp_path)
    missed = [n for n, r in results.items() if "manual-sort" not in r.rules]
    assert not missed, [results[m].notes for m in missed]
    for name, r in results.items():
        assert "std::sort(" in r.code and "swap" not in r.code, (name, r.code)


def _rewritten(code: str, name: str, language: str = "cpp") -> tuple[str, frozenset[str],
                                                                      tuple[str, ...]]:
    src = (HEADERS if language == "cpp" else "") + code
    res = rewrite(function_by_name(src, language, name), RULES)  # type: ignore[arg-type]
    return res.code, res.rules, res.notes


def test_the_flag_goes_with_the_loop() -> None:
    text, rules, _notes = _rewritten(FLAG_BUBBLE.format(f="f", t="int", gt=">"), "f")
    assert rules == RULES
    assert text.split("{", 1)[1].strip() == "std::sort(v.begin(), v.end());\n}", text


def test_class_elements_get_a_stable_sort_from_a_stable_shape() -> None:
    code = "struct P { int k, tag; bool operator<(const P& o) const { return k < o.k; } };\n" + \
        INSERTION_SWAPS.format(f="f", t="P", gt="<").replace(
            "a[j - 1] < a[j]", "a[j] < a[j - 1]")
    text, rules, _notes = _rewritten(code, "f")
    assert rules == RULES, _notes
    assert "std::stable_sort(a, a + n);" in text


@pytest.mark.parametrize(("code", "words"), [
    # comb sort whose gap may reach 0: the last pass need not compare neighbours
    (COMB.format(f="f", t="int", gt=">").replace("        if (gap < 1) gap = 1;\n", ""),
     "not a recognised sort"),
    # one pass over the even pairs only
    (ODD_EVEN.format(f="f", t="int", gt=">").split("        for (int i = 0;")[0]
     + "    }\n}\n", "not a recognised sort"),
    # a flag the loop starts false: it never runs
    (FLAG_BUBBLE.format(f="f", t="int", gt=">").replace("swapped = true;\n    while",
                                                         "swapped = false;\n    while"),
     "not a recognised sort"),
    # floating elements: NaN has no place in an order
    (FLAG_BUBBLE.format(f="f", t="double", gt=">"), "integers"),
    # an unstable sort of distinguishable equal elements
    ("struct P { int k, tag; bool operator<(const P& o) const { return k < o.k; } "
     "bool operator>(const P& o) const { return o < *this; } };\n"
     + COMB.format(f="f", t="P", gt=">"), "order of its own"),
])
def test_near_misses_stay_with_a_note(code: str, words: str) -> None:
    _text, rules, notes = _rewritten(code, "f")
    assert "manual-sort" not in rules
    assert any(words in n for n in notes), notes


def test_c_sort_stays_with_a_note() -> None:
    code = INSERTION_SWAPS.format(f="f", t="int", gt=">").replace("std::swap(a[j - 1], a[j]);",
                                                                  "{ int t = a[j - 1]; "
                                                                  "a[j - 1] = a[j]; a[j] = t; }")
    _text, rules, notes = _rewritten(code, "f", "c")
    assert "manual-sort" not in rules
    assert any("C has no std::sort" in n for n in notes), notes


# --- the finding carries its proof ---------------------------------------------------------


def _manual_sort_findings(code: str, name: str = "f") -> list[Finding]:
    site = function_by_name(HEADERS + code, "cpp", name)
    return [f for f in analyze_site(site).findings if f.rule == "manual-sort"]


def test_a_sort_without_swaps_is_reported_with_its_proof_and_rewritten() -> None:
    # the insertion sort by shifts swaps nothing: detection proves its shape all the same
    code = INSERTION.format(f="f", t="int", gt=">")
    (finding,) = _manual_sort_findings(code)
    proof = finding.proof
    assert isinstance(proof, HandSort)
    assert (proof.kind, proof.array, proof.order) == ("insertion", "v", "ascending")
    text, rules, _notes = _rewritten(code, "f")
    assert rules == RULES and "std::sort(v.begin(), v.end());" in text


def test_a_sort_in_another_loop_is_its_own_finding() -> None:
    code = ("void f(std::vector<std::vector<int>>& rows, std::vector<int>& v) {\n"
            "    for (std::size_t r = 0; r < rows.size(); ++r) {\n"
            "        for (std::size_t i = 0; i < v.size(); ++i)\n"
            "            for (std::size_t j = 0; j + 1 < v.size() - i; ++j)\n"
            "                if (v[j] > v[j + 1]) std::swap(v[j], v[j + 1]);\n"
            "        rows[r] = v;\n"
            "    }\n"
            "}\n")
    (finding,) = _manual_sort_findings(code)
    assert isinstance(finding.proof, HandSort) and finding.lines == (6,)  # the inner nest
    text, rules, notes = _rewritten(code, "f")
    assert rules == RULES and "std::sort(v.begin(), v.end());" in text, notes


def test_a_compare_and_swap_nest_of_no_known_shape_is_left_with_why() -> None:
    code = COMB.format(f="f", t="int", gt=">").replace("        if (gap < 1) gap = 1;\n", "")
    (finding,) = _manual_sort_findings(code)
    assert isinstance(finding.proof, SortLikeLoops)
    _text, rules, notes = _rewritten(code, "f")
    assert "manual-sort" not in rules
    assert [n for n in notes if n.startswith("manual-sort:")] == [
        f"manual-sort: the loops on line {finding.lines[0]} stay: they are not a recognised "
        "sort of a whole range (bubble, selection, insertion, odd-even or comb sort, comparing "
        "and swapping nothing else)"]
