"""The linear-search-in-loop rule's rewrite of hand-written membership scans nested in a loop:
the shapes it rewrites, the code it must leave alone (each refusal checked to matter by
weakening its proof), and generated variants built with g++ before and after."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from differential_support import HAVE_GXX, Variant, compare_rewritten, rewrite_function
from perfpilot.code import nested_membership as nm
from perfpilot.code import sequence_scan
from perfpilot.code.locate import function_by_name
from perfpilot.optimizing.builtin import rewrite
from perfpilot.planning.builtin import analyze_site
from perfpilot.rules.search import linear_search_in_loop as lsl

RULES = frozenset({"linear-search-in-loop"})
_HEAD = "#include <string>\n#include <vector>\nint g(int);\n"


def _rewritten(code: str) -> tuple[str, tuple[str, ...]]:
    res = rewrite_function(_HEAD + code, RULES)
    return res.code, res.notes


_VEC = "const std::vector<int>& a, const std::vector<int>& b"


def _f(body: str, params: str = _VEC, pre: str = "int c = 0;", ret: str = "c") -> str:
    return f"long f({params}) {{ {pre} {body} return {ret}; }}"


# --- positive forms --------------------------------------------------------------------------

@pytest.mark.parametrize(("code", "want"), [
    (_f("for (std::size_t i = 0; i < a.size(); ++i) { for (std::size_t j = 0; j < b.size(); "
        "++j) if (a[i] == b[j]) { ++c; break; } }"),
     "if (!b_sorted.empty() && std::binary_search(b_sorted.begin(), b_sorted.end(), a[i])) "
     "{ ++c; }"),
    (_f("for (int x : a) { bool found = false; for (auto y : b) if (y == x) { found = true; "
        "break; } if (found) c += 3; }"),
     "if (std::binary_search(b_sorted.begin(), b_sorted.end(), x)) { found = true; }"),
    (_f("for (int x : a) { bool found = false; for (const int& y : b) { if (x == y) "
        "found = true; } if (!found) ++c; }"),
     "if (std::binary_search(b_sorted.begin(), b_sorted.end(), x)) { found = true; }"),
    (_f("for (int x : a) for (int j = 0; j < b.size(); j++) if (b[j] == x) c++;"),
     "c += std::upper_bound(b_sorted.begin(), b_sorted.end(), x) - "
     "std::lower_bound(b_sorted.begin(), b_sorted.end(), x);"),
    (_f("for (int i = 0; i < n; ++i) { for (int j = 0; j < m; ++j) if (a[i] == b[j]) "
        "{ c += 2; ++c; break; } }", "const int* a, int n, const int* b, int m"),
     "if (!b_sorted.empty() && std::binary_search(b_sorted.begin(), b_sorted.end(), a[i])) "
     "{ c += 2; ++c; }"),
])
def test_rewritten_forms(code: str, want: str) -> None:
    out, notes = _rewritten(code)
    assert want in out, (out, notes)
    assert "std::sort(b_sorted.begin(), b_sorted.end());" in out
    assert "for (auto y" not in out and "j <" not in out


def test_a_pointer_copy_takes_only_a_positive_bound() -> None:
    out, _ = _rewritten(_f("for (int i = 0; i < n; ++i) for (int j = 0; j < m; ++j) "
                           "if (b[j] == a[i]) ++c;", "const long* a, int n, const long* b, "
                           "int m"))
    assert "std::vector<long> b_sorted(b, b + (m > 0 ? m : 0));" in out


def test_two_scans_of_one_container_share_a_copy() -> None:
    out, _ = _rewritten(_f("for (int x : a) { for (int y : b) if (y == x) { ++c; break; } "
                           "for (int y : b) if (y == x + 1) c += 1; }"))
    assert out.count("std::sort(") == 1 and out.count("b_sorted") == 9


# --- left alone --------------------------------------------------------------------------------

_SCAN = "for (std::size_t j = 0; j < b.size(); ++j) if (a[i] == b[j]) {{ {act} break; }}"
_OUTER = "for (std::size_t i = 0; i < a.size(); ++i) {{ {inner} }}"


def _scan(act: str = "++c;", inner: str = "", outer_pre: str = "", params: str = _VEC) -> str:
    return _f(_OUTER.format(inner=outer_pre + (inner or _SCAN.format(act=act))), params)


_NEGATIVE: list[tuple[str, str, str]] = [
    (_scan(params="const std::vector<double>& a, const std::vector<double>& b"),
     "", "float"),
    (_scan(params="const std::vector<long>& a, const std::vector<int>& b"),
     "element type", "mixed"),
    (_scan(outer_pre="b[0] = 1; ", params="const std::vector<int>& a, std::vector<int>& b"),
     "writes 'b[0]'", "written"),
    (_scan(outer_pre="b.push_back(1); ", params="const std::vector<int>& a, "
           "std::vector<int>& b"), "push_back", "appended"),
    (_scan(inner="for (std::size_t j = 0; j < b.size(); ++j) { if (a[i] == b[j]) { ++c; "
           "break; } ++c; }"), "more than one test", "extra"),
    (_scan(inner="for (std::size_t j = 1; j < b.size(); ++j) if (a[i] == b[j]) { ++c; "
           "break; }"), "", "partial"),
    (_scan(inner="for (std::size_t j = 0; j < b.size(); ++j) if (a[c++ % 2] == b[j]) { ++c; "
           "break; }"), "pure", "impure"),
    (_scan(act="c += j;"), "plain statements", "uses-index"),
    (_scan(inner="for (std::size_t j = 0; j < b.size(); ++j) if (a[i] == b[j]) c += 2;"),
     "neither", "not-idempotent"),
    (_f(_OUTER.format(inner="short d = 0; for (std::size_t j = 0; j < b.size(); ++j) "
                            "if (a[i] == b[j]) ++d; c += d;")), "neither", "narrow-counter"),
    (_f("for (int i = 0; i < n; ++i) { for (int j = 0; j < m; ++j) if (a[i] == b[j]) "
        "{ ++c; break; } out.push_back(i); }", "const int* a, int n, const int* b, int m, "
        "std::vector<int>& out"), "may change", "pointer-method"),
    (_f("for (int i = 0; i < n; ++i) { for (int j = 0; j < m; ++j) if (a[i] == b[j]) "
        "{ ++c; break; } p[i] = 0; }", "const int* a, int n, const int* b, int m, int* p"),
     "point into", "pointer-store"),
]


def _weaken(step: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if step == "float":
        monkeypatch.setattr(sequence_scan, "_STRING", frozenset({"double"}))
        monkeypatch.setattr(lsl, "_key_has_element_type", lambda *a: True)
    elif step == "mixed":
        monkeypatch.setattr(lsl, "_key_has_element_type", lambda *a: True)
    elif step in ("pointer-method", "pointer-store"):
        monkeypatch.setattr(lsl, "outer_writes_ok", lambda *a: "")
    elif step == "written":
        monkeypatch.setattr(lsl, "outer_writes_ok", lambda *a: "")
        monkeypatch.setattr(lsl, "changes_in_loop", lambda *a: "")
    elif step == "appended":
        monkeypatch.setattr(lsl, "changes_in_loop", lambda *a: "")
    elif step == "extra":
        monkeypatch.setattr(nm, "single_statement", lambda body: body.named_children[0]
                            if body.type == "compound_statement" else body)
    elif step == "partial":
        monkeypatch.setattr(nm, "_from_first", lambda start: True)
    elif step == "impure":
        monkeypatch.setattr(nm, "pure_key", lambda node: True)
        monkeypatch.setattr(lsl, "outer_writes_ok", lambda *a: "")
    elif step == "uses-index":
        monkeypatch.setattr(nm, "_plain", lambda stmt, var: True)
    elif step == "not-idempotent":
        monkeypatch.setattr(nm, "_literal_store", lambda stmt: True)
    elif step == "narrow-counter":
        monkeypatch.setattr(nm, "_COUNTER", {"short"})


@pytest.mark.parametrize(("code", "words", "_step"), _NEGATIVE)
def test_left_alone(code: str, words: str, _step: str) -> None:
    out, notes = _rewritten(code)
    assert "binary_search" not in out and "upper_bound" not in out, out
    assert words in " ".join(notes), notes


@pytest.mark.parametrize(("code", "words", "step"), _NEGATIVE)
def test_a_weakened_proof_rewrites_the_negative_cases(
        code: str, words: str, step: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _weaken(step, monkeypatch)
    out, notes = _rewritten(code)
    assert "binary_search" in out or "upper_bound" in out, (out, notes)


def test_c_is_left_alone() -> None:
    code = ("long f(const int* a, int n, const int* b, int m) { long c = 0; for (int i = 0; "
            "i < n; ++i) for (int j = 0; j < m; ++j) if (a[i] == b[j]) ++c; return c; }")
    assert "sorted" not in rewrite(function_by_name(code, "c", "f"), RULES).code


def test_the_scan_must_be_inside_another_loop() -> None:
    out, _ = _rewritten(_f("for (std::size_t j = 0; j < b.size(); ++j) if (a[0] == b[j]) "
                           "{ ++c; break; }"))
    assert "binary_search" not in out


def test_a_container_made_inside_the_loop_stays() -> None:
    out, notes = _rewritten(_f(_OUTER.format(
        inner="std::vector<int> d(b); for (int y : d) if (y == a[i]) { ++c; break; }")))
    assert "binary_search" not in out and "inside the loop" in " ".join(notes)


# --- differential ------------------------------------------------------------------------------

_TYPES = ("int", "long", "std::string")
_ACTIONS = ("counter-break", "flag-break", "flag", "count-all")


def _variant(rnd: random.Random, n: int) -> Variant:
    t = _TYPES[n % 3]
    action = _ACTIONS[(n // 3) % 4]
    pointer = t != "std::string" and rnd.random() < 0.3
    name = f"nm_{n}"
    key = rnd.choice(("a[i]", "x")) if not pointer else "a[i]"
    outer = "for (int x : a)" if key == "x" else (
        "for (int i = 0; i < n; ++i)" if pointer else "for (std::size_t i = 0; i < a.size(); ++i)")
    outer = outer.replace("int x", f"{t} x")
    if pointer:
        head, elem = "for (int j = 0; j < m; ++j)", "b[j]"
    elif rnd.random() < 0.5:
        head, elem = "for (std::size_t j = 0; j < b.size(); ++j)", "b[j]"
    else:
        head, elem = rnd.choice(("for (auto y : b)", "for (const auto& y : b)")), "y"
    test = f"{elem} == {key}" if rnd.random() < 0.5 else f"{key} == {elem}"
    body = {
        "counter-break": f"{head} if ({test}) {{ c += 2; ++c; break; }}",
        "flag-break": f"bool found = false; {head} if ({test}) {{ found = true; break; }} "
                      "if (found) c = c * 3 + 1; else c -= 1;",
        "flag": f"int hit = 0; {head} {{ if ({test}) hit = 1; }} c = c * 5 + hit;",
        "count-all": f"{head} if ({test}) ++c;",
    }[action]
    params = (f"const {t}* a, int n, const {t}* b, int m" if pointer
              else f"const std::vector<{t}>& a, const std::vector<{t}>& b")
    code = (f"long long {name}({params}) {{\n    long long c = 0;\n    {outer} {{\n"
            f"        {body}\n    }}\n    return c;\n}}\n")
    make = "std::to_string((k * 7919) % M - M / 2)" if t == "std::string" else \
        f"({t})((k * 7919) % M - M / 2)"
    call = f"{name}(a.data(), (int)a.size(), b.data(), (int)b.size())" if pointer \
        else f"{name}(a, b)"
    make_b = make.replace("k", "(k * 3 + 1)")
    driver = " ".join(
        f"{{ const int M = {m}; std::vector<{t}> a, b; for (int k = 0; k < {na}; ++k) "
        f"a.push_back({make}); for (int k = 0; k < {nb}; ++k) b.push_back({make_b}); "
        f"std::printf(\"%lld\\n\", (long long){call}); }}"
        for m, na, nb in ((7, 200, 30), (1001, 300, 250), (3, 5, 0), (50, 0, 9), (1, 4, 4)))
    return Variant(name, code, driver)


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_generated_variants_keep_results(tmp_path: Path) -> None:
    rnd = random.Random(7)
    results = compare_rewritten([_variant(rnd, n) for n in range(48)], RULES, tmp_path)
    for res in results.values():
        assert "binary_search" in res.code or "upper_bound" in res.code, res.code
        assert " j <" not in res.code and ": b)" not in res.code, res.code


# --- each finding carries its proof --------------------------------------------------------


def _proofs(code: str) -> list[object]:
    site = function_by_name("#include <algorithm>\n" + _HEAD + code, "cpp", "f")
    return [f.proof for f in analyze_site(site).findings if f.rule == "linear-search-in-loop"]


def test_a_proved_scan_a_refused_search_and_plain_advice_each_end_once() -> None:
    code = _f("for (int x : a) { if (std::find(b.begin(), b.end(), x) != b.end()) ++c; "
              "if (std::find(d.begin(), d.end(), x) != d.end()) c += 2; "
              "if (std::any_of(b.begin(), b.end(), [x](int y) { return y * y == x; })) ++c; }",
              params=_VEC + ", const std::vector<long>& d")
    proofs = _proofs(code)
    assert [type(p).__name__ for p in proofs] == ["FindSite", "Refused", "Unproved"]
    res = rewrite_function("#include <algorithm>\n" + _HEAD + code, RULES)
    assert "std::binary_search(b_sorted.begin(), b_sorted.end(), x)" in res.code
    notes = [n for n in res.notes if n.startswith("linear-search-in-loop:")]
    assert len(notes) == 2, notes
    assert "linear-search-in-loop: the search of 'd' on line 5 stays: the value looked up is " \
        "not known to have the element type" in notes, notes
    assert any(n.startswith("linear-search-in-loop: `std::any_of(b.begin(), b.end(), [x](int "
                            "y) {") and "stays: the rewrite proves" in n for n in notes), notes
