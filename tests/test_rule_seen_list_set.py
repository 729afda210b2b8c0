"""seen-list-set: a local vector of distinct values, searched from end to end before each append,
gets a hash set kept beside it. Positive forms (find, count, hand-written scan loops), one
negative case per proof obligation (each checked to be rewritten by a proof weakened at that
obligation, so the case tests it), the linear-search rule stepping aside, and a g++
differential test over generated variants."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from differential_support import HAVE_GXX, Variant, compare
from perfpilot.code import seen_list
from perfpilot.code.locate import function_by_name
from perfpilot.optimizing.builtin import rewrite
from perfpilot.planning.builtin import analyze_site
from perfpilot.rules.search.seen_list_set import SeenListProof

RULES = frozenset({"seen-list-set"})
_HEAD = ("#include <algorithm>\n#include <cstdio>\n#include <string>\n#include <vector>\n"
         "struct P { int a; bool operator==(const P& o) const { return a == o.a; } };\n")


def _rewritten(code: str, rules: frozenset[str] = RULES
               ) -> tuple[str, frozenset[str], tuple[str, ...], tuple[str, ...]]:
    res = rewrite(function_by_name(_HEAD + code, "cpp", "f"), rules)
    return res.code, res.rules, res.notes, res.includes


def _findings(code: str) -> list[str]:
    return [f.rule for f in analyze_site(function_by_name(_HEAD + code, "cpp", "f")).findings]


def _loop(body: str, pre: str = "", post: str = "return (int)seen.size();",
          decl: str = "std::vector<int> seen;", head: str = "for (int x : v)") -> str:
    return (f"int f(const std::vector<int>& v) {{ {decl} {pre} {head} {{ {body} }} {post} }}")


# --- positive forms --------------------------------------------------------------------------

@pytest.mark.parametrize(("body", "want"), [
    ("if (std::find(seen.begin(), seen.end(), x) == seen.end()) seen.push_back(x);",
     "if (seen_set.insert(x).second) seen.push_back(x);"),
    ("if (std::find(seen.begin(), seen.end(), x) != seen.end()) continue; seen.push_back(x);",
     "if (!seen_set.insert(x).second) continue; seen.push_back(x);"),
    ("if (std::find(seen.cbegin(), seen.cend(), x) != seen.cend()) { ++d; } "
     "else { seen.emplace_back(x); }",
     "if (!seen_set.insert(x).second) { ++d; } else { seen.emplace_back(x); }"),
    ("if (!(std::find(std::begin(seen), std::end(seen), x) != std::end(seen))) "
     "seen.push_back(x);", "if (seen_set.insert(x).second) seen.push_back(x);"),
    ("if (std::count(seen.begin(), seen.end(), x) == 0) seen.push_back(x);",
     "if (seen_set.insert(x).second) seen.push_back(x);"),
    ("if (!std::count(seen.begin(), seen.end(), x)) { seen.push_back(x); ++d; }",
     "if (seen_set.insert(x).second) { seen.push_back(x); ++d; }"),
    ("if (std::count(seen.begin(), seen.end(), x) > 0) continue; seen.push_back(x);",
     "if (!seen_set.insert(x).second) continue; seen.push_back(x);"),
    ("if (std::count(seen.begin(), seen.end(), x)) ++d; seen.push_back(x);",
     "if (!seen_set.insert(x).second) ++d; seen.push_back(x);"),
])
def test_find_and_count_forms(body: str, want: str) -> None:
    text, rules, notes, includes = _rewritten(_loop(body, pre="int d = 0;",
                                                    post="return (int)seen.size() + d;"))
    assert rules == RULES, notes
    assert "std::vector<int> seen;\n" not in text  # one line: the set follows the vector
    assert "std::vector<int> seen; std::unordered_set<int> seen_set;" in text
    assert want in text, text
    assert "std::find" not in text and "std::count" not in text
    assert includes == ("<unordered_set>",)


@pytest.mark.parametrize(("scan", "after"), [
    ("bool found = false; for (const auto& s : seen) if (s == x) { found = true; break; }",
     "if (!found) seen.push_back(x);"),
    ("bool found = false; for (int s : seen) { if (x == s) found = true; }",
     "if (!found) seen.push_back(x);"),
    ("bool found = false; for (std::size_t j = 0; j < seen.size(); ++j) "
     "if (seen[j] == x) { found = true; break; }", "if (found) continue; seen.push_back(x);"),
    ("bool found; found = false; for (int j = 0; j < (int)seen.size(); j++) "
     "if (seen[j] == x) { found = true; }", "if (!found) { seen.push_back(x); }"),
])
def test_hand_written_scan_loops(scan: str, after: str) -> None:
    text, rules, notes, _ = _rewritten(_loop(f"{scan} {after}"))
    assert rules == RULES, notes
    assert "found = !seen_set.insert(x).second; " + after in text, text
    assert "for (int x : v)" in text and text.count("for") == 1
    if scan.startswith("bool found = false;"):
        # the flag declared right before the scan takes the test as its initializer
        assert "bool found = !seen_set.insert(x).second; " + after in text, text


def test_an_element_of_another_container_is_searched_and_seen_is_returned() -> None:
    text, rules, notes, _ = _rewritten(
        "std::vector<std::string> f(const std::vector<std::string>& w) {\n"
        "    std::vector<std::string> seen{};\n"
        "    for (std::size_t i = 0; i < w.size(); ++i)\n"
        "        if (std::find(seen.begin(), seen.end(), w[i]) == seen.end())\n"
        "            seen.push_back(w[i]);\n"
        "    return seen;\n}\n")
    assert rules == RULES, notes
    assert ("    std::vector<std::string> seen{};\n"
            "    std::unordered_set<std::string> seen_set;\n") in text
    assert "if (seen_set.insert(w[i]).second)" in text


def test_reads_reserve_and_a_char_string_are_accepted() -> None:
    text, rules, notes, _ = _rewritten(
        "int f(const std::string& s) { std::vector<char> seen; seen.reserve(8); int t = 0; "
        "for (char c : s) { if (std::find(seen.begin(), seen.end(), c) == seen.end()) "
        "seen.push_back(c); t += (int)seen.size() + seen[0] + seen.back(); } "
        "for (char c : seen) t = t * 3 + c; "
        "std::vector<char> copy = seen; return t + (int)copy.size(); }")
    assert rules == RULES, notes
    assert "std::unordered_set<char> seen_set;" in text


def test_fresh_names_and_two_vectors() -> None:
    text, rules, notes, _ = _rewritten(
        "int f(const std::vector<int>& v) { int seen_set = 1; std::vector<int> seen; "
        "std::vector<long> other; for (int x : v) { long y = x * 2L; "
        "if (std::find(seen.begin(), seen.end(), x) == seen.end()) seen.push_back(x); "
        "if (std::find(other.begin(), other.end(), y) == other.end()) other.push_back(y); } "
        "return (int)(seen.size() + other.size()) + seen_set; }")
    assert rules == RULES, notes
    assert "std::unordered_set<int> seen_set2;" in text
    assert "std::unordered_set<long> other_set;" in text
    assert "seen_set2.insert(x).second" in text and "other_set.insert(y).second" in text


def test_detection_and_linear_search_steps_aside() -> None:
    code = _loop("if (std::find(seen.begin(), seen.end(), x) == seen.end()) seen.push_back(x);")
    rules = _findings(code)
    assert "seen-list-set" in rules and "linear-search-in-loop" not in rules
    src = _HEAD + code
    found = [f for f in analyze_site(function_by_name(src, "cpp", "f")).findings
             if f.rule == "seen-list-set"]
    proof = found[0].proof
    assert isinstance(proof, SeenListProof)
    assert (proof.site.var, proof.site.form, proof.site.element) == ("seen", "find", "int")
    assert found[0].category_id == 1 and "O(n·m)" in found[0].explanation
    # the linear-search rewrite leaves it alone without a note on it; both together: one set
    res = rewrite(function_by_name(src, "cpp", "f"), {"linear-search-in-loop"})
    assert not res.changed and not any("'seen'" in n for n in res.notes), res.notes
    both = rewrite(function_by_name(src, "cpp", "f"), {"linear-search-in-loop", "seen-list-set"})
    assert both.rules == RULES and "binary_search" not in both.code
    scan = _loop("bool found = false; for (int s : seen) if (s == x) { found = true; break; } "
                 "if (!found) seen.push_back(x);")
    assert "seen-list-set" in _findings(scan) and "linear-search-in-loop" not in _findings(scan)


def test_a_refused_seen_list_is_still_reported_by_linear_search() -> None:
    code = _loop("if (std::find(seen.begin(), seen.end(), x) == seen.end()) seen.push_back(x);",
                 post="seen.clear(); return 0;")
    rules = _findings(code)
    assert "seen-list-set" not in rules and "linear-search-in-loop" in rules


# --- negative cases: one per obligation ------------------------------------------------------

_FIND = "if (std::find(seen.begin(), seen.end(), x) == seen.end()) seen.push_back(x);"

# (code, words of the note, the proof step that refuses it)
NEGATIVE: list[tuple[str, str, str]] = [
    # the vector: local, declared once, alone, empty, plain
    (_loop(_FIND, decl="static std::vector<int> seen;"), "static", "decl"),
    (_loop(_FIND, decl="std::vector<int> seen{1, 2};"), "start empty", "decl"),
    (_loop(_FIND, decl="std::vector<int> seen = v;"), "start empty", "decl"),
    (_loop(_FIND, decl="std::vector<int> seen, more;"), "together", "decl"),
    (_loop(_FIND, decl="std::vector<int> seen(5);"), "start empty", "decl"),
    (_loop(_FIND, decl="std::vector<int> seen(v);"), "start empty", "decl"),
    # element types whose hash equality is not known to be ==
    ("int f(const std::vector<double>& v) { std::vector<double> seen; for (double x : v) { "
     + _FIND + " } return (int)seen.size(); }", "not integers or strings", "hash"),
    ("int f(const std::vector<P>& v) { std::vector<P> seen; for (const P& x : v) { "
     + _FIND + " } return (int)seen.size(); }", "not integers or strings", "hash"),
    (_loop(_FIND, decl="std::vector<float> seen;", head="for (float x : {1.f, 2.f})"),
     "not integers or strings", "hash"),
    # other changes of the vector
    (_loop(_FIND, post="seen.erase(seen.begin()); return (int)seen.size();"), "changed", "uses"),
    (_loop(_FIND, post="seen.clear(); return 0;"), "changed", "uses"),
    (_loop(_FIND + " if (x < 0) seen.resize(1);"), "changed", "uses"),
    (_loop(_FIND + " if (x == 7) seen[0] = 3;"), "changed", "uses"),
    (_loop(_FIND, post="std::vector<int> o; seen.swap(o); return (int)o.size();"), "changed",
     "uses"),
    (_loop(_FIND + " std::sort(seen.begin(), seen.end());"), "changed", "uses"),
    (_loop(_FIND + " if (x == 3) seen.push_back(4);"), "changed", "uses"),
    (_loop(_FIND + " if (x == 3) seen.pop_back();"), "changed", "uses"),
    (_loop(_FIND, pre="seen.insert(seen.end(), 5);"), "changed", "uses"),
    (_loop(_FIND + " for (int& e : seen) e += 1;"), "changed", "uses"),
    # escapes: a non-const reference, an unknown call, an address, a kept iterator, lambdas
    ("void g(std::vector<int>&); " + _loop(_FIND + " g(seen);"), "escapes", "uses"),
    ("int g(const std::vector<int>&); " + _loop(_FIND + " x = g(seen);"), "escapes", "uses"),
    (_loop(_FIND, pre="std::vector<int>* p = &seen;", post="return (int)p->size();"),
     "escapes", "uses"),
    (_loop(_FIND, pre="auto& r = seen;", post="r.push_back(1); return (int)seen.size();"),
     "escapes", "uses"),
    (_loop(_FIND, pre="seen.reserve(4); auto it = seen.begin();",
           post="return *it;"), "escapes", "uses"),
    (_loop(_FIND + " auto add = [&]() { seen.push_back(9); }; if (x == 2) add();"),
     "escapes", "uses"),
    (_loop(_FIND + " auto n = [&]() { return seen.size(); }; x = (int)n();"), "escapes",
     "uses"),
    # the value searched for is not the value appended, or may change, or has another type
    (_loop("if (std::find(seen.begin(), seen.end(), x) == seen.end()) seen.push_back(x + 1);"),
     "next statement", "push"),
    (_loop("if (std::find(seen.begin(), seen.end(), x) == seen.end()) { ++x; "
           "seen.push_back(x); }"), "next statement", "push"),
    (_loop("if (std::find(seen.begin(), seen.end(), x) != seen.end()) seen.push_back(x);"),
     "next statement", "push"),
    ("int f(const std::vector<int>& v) { std::vector<int> seen; std::size_t i = 0; "
     "while (i < v.size()) { if (std::find(seen.begin(), seen.end(), v[i++]) == seen.end()) "
     "seen.push_back(v[i++]); } return (int)seen.size(); }", "not known", "type"),
    ("int h(int); " + _loop("if (std::find(seen.begin(), seen.end(), h(x)) == seen.end()) "
                            "seen.push_back(h(x));"), "not a variable", "type"),
    ("int f(const std::vector<int>& v) { std::vector<char> seen; for (int x : v) { "
     "if (std::find(seen.begin(), seen.end(), x) == seen.end()) seen.push_back(x); } "
     "return (int)seen.size(); }", "element type", "type"),
    ("int f(const std::vector<long>& v) { std::vector<int> seen; for (long x : v) { "
     + _FIND + " } return (int)seen.size(); }", "element type", "type"),
    ("int f(const std::vector<const char*>& v) { std::vector<std::string> seen; "
     "for (auto x : v) { " + _FIND + " } return (int)seen.size(); }", "element type", "type"),
    ("int f(const std::vector<long>& v) { std::vector<int> seen; for (int x : seen) {} "
     "for (long w : v) { int x = (int)w; bool found = false; for (long s : seen) "
     "if (s == x) { found = true; break; } if (!found) seen.push_back(x); } "
     "return (int)seen.size(); }", "element type", "type"),
    ("int f(const std::vector<int>& v) { std::vector<int> seen; for (int x : v) { "
     "bool found = false; for (long s : seen) if (s == x) { found = true; break; } "
     "if (!found) seen.push_back(x); } return (int)seen.size(); }", "converts", "type"),
    # the search is not the whole condition, or the vector is fresh at each search
    (_loop("if (std::find(seen.begin(), seen.end(), x) == seen.end() && x > 0) "
           "seen.push_back(x);"), "whole condition", "shape"),
    (_loop("bool dup = std::find(seen.begin(), seen.end(), x) != seen.end(); "
           "if (!dup) seen.push_back(x);"), "whole condition", "shape"),
    ("int f(const std::vector<int>& v) { int t = 0; for (int x : v) { std::vector<int> seen; "
     + _FIND + " t += (int)seen.size(); } return t; }", "inside the loop", "loop"),
    # paths the block structure does not show
    (_loop(_FIND + " if (x == 99) goto out;", post="out: return (int)seen.size();"), "goto",
     "function"),
    (_loop("try { " + _FIND + " } catch (...) {}"), "exceptions", "function"),
]


@pytest.mark.parametrize(("code", "words", "_step"), NEGATIVE)
def test_left_alone(code: str, words: str, _step: str) -> None:
    text, rules, notes, _ = _rewritten(code)
    assert "seen-list-set" not in rules, text
    assert "unordered_set" not in text
    assert any(words in n for n in notes if n.startswith("seen-list-set")), notes
    assert "seen-list-set" not in _findings(code)


@pytest.mark.parametrize("code", [
    # a part of the vector only, or a vector the function does not own
    _loop("if (std::find(seen.begin() + 1, seen.end(), x) == seen.end()) seen.push_back(x);"),
    _loop("bool found = false; for (std::size_t j = 1; j < seen.size(); ++j) "
          "if (seen[j] == x) { found = true; break; } if (!found) seen.push_back(x);"),
    "int f(const std::vector<int>& v, std::vector<int>& seen) { for (int x : v) { " + _FIND
    + " } return (int)seen.size(); }",
    # a search the function never follows with an append
    "int f(const std::vector<int>& v) { std::vector<int> seen{}; int c = 0; for (int x : v) "
    "if (std::find(seen.begin(), seen.end(), x) == seen.end()) ++c; return c; }",
])
def test_other_searches_are_not_candidates(code: str) -> None:
    text, rules, notes, _ = _rewritten(code)
    assert "seen-list-set" not in rules and "unordered_set" not in text
    assert not any(n.startswith("seen-list-set") for n in notes), notes


def _weaken(step: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make one proof obligation accept everything."""
    accept: dict[str, Callable[[], None]] = {
        "uses": lambda: monkeypatch.setattr(seen_list, "_other_uses", lambda *a: ""),
        "hash": lambda: monkeypatch.setattr(seen_list, "hashable_element", lambda t: True),
        "function": lambda: monkeypatch.setattr(seen_list, "jumps_in", lambda f: False),
    }
    accept[step]()


@pytest.mark.parametrize(("code", "words", "step"),
                         [c for c in NEGATIVE if c[2] in ("uses", "hash")] +
                         [c for c in NEGATIVE if "goto" in c[1]])
def test_a_weakened_proof_rewrites_the_negative_cases(code: str, words: str, step: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    _weaken(step, monkeypatch)
    _text, rules, notes, _ = _rewritten(code)
    assert rules == RULES, notes


# --- differential ----------------------------------------------------------------------------

_TYPES = ("int", "long", "char", "unsigned", "std::string")
_SEARCHES = (
    "if (std::find(seen.begin(), seen.end(), {x}) == seen.end()) seen.push_back({x});",
    "if (std::find(seen.begin(), seen.end(), {x}) != seen.end()) continue;\n"
    "        seen.push_back({x});",
    "if (std::find(seen.cbegin(), seen.cend(), {x}) != seen.cend()) {{ ++dups; }} "
    "else {{ seen.emplace_back({x}); }}",
    "if (std::count(seen.begin(), seen.end(), {x}) == 0) {{ seen.push_back({x}); "
    "dups += 2; }}",
    "if (!std::count(seen.begin(), seen.end(), {x})) seen.push_back({x}); else ++dups;",
    "if (std::count(seen.begin(), seen.end(), {x}) > 0) continue;\n        seen.push_back({x});",
    "bool found = false;\n        for (const auto& s : seen)\n"
    "            if (s == {x}) {{ found = true; break; }}\n"
    "        if (!found) seen.push_back({x}); else ++dups;",
    "bool found = false;\n        for (std::size_t j = 0; j < seen.size(); ++j)\n"
    "            if (seen[j] == {x}) found = true;\n"
    "        if (found) {{ ++dups; continue; }}\n        seen.push_back({x});",
)
_HEADS = (("for ({T} x : v)", "x"), ("for (const auto& x : v)", "x"),
          ("for (std::size_t i = 0; i < v.size(); ++i)", "v[i]"))


def _fold(t: str, e: str) -> str:
    """An unsigned hash of one element (strings by their characters)."""
    if t == "std::string":
        return f"[&]() {{ unsigned long long g = {e}.size(); for (char c : {e}) " \
               "g = g * 131 + (unsigned char)c; return g; }()"
    return f"(unsigned long long)(long long){e}"


def _seen_variant(rnd: random.Random, n: int) -> Variant:
    t = _TYPES[n % len(_TYPES)]
    search = _SEARCHES[(n // len(_TYPES)) % len(_SEARCHES)]
    head, x = _HEADS[rnd.randrange(len(_HEADS))]
    ret = ("vector", "size", "fold")[n % 3]
    name = f"seen_{n}"
    body = search.format(x=x)
    rtype = {"vector": f"std::vector<{t}>", "size": "long long",
             "fold": "unsigned long long"}[ret]
    tail = {
        "vector": "return seen;",
        "size": "return (long long)seen.size() * 1000 + dups;",
        "fold": "unsigned long long h = dups;\n    for (const auto& e : seen) h = h * 1000003 + "
                + _fold(t, "e") + ";\n    return h;",
    }[ret]
    code = (f"{rtype} {name}(const std::vector<{t}>& v) {{\n"
            f"    std::vector<{t}> seen;\n    long long dups = 0;\n"
            f"    {head.format(T=t)} {{\n        {body}\n    }}\n"
            f"    (void)dups;\n    {tail}\n}}\n")
    if n == 0:
        code = "#include <unordered_set>\n" + code
    make = {
        "std::string": "std::to_string((k * 7919) % M)",
        "char": "(char)((k * 37) % M - 64)",
    }.get(t, f"({t})((k * 7919) % M)")
    show = ("{ auto r = " + name + "(in); unsigned long long h = r.size(); for (const auto& e "
            ": r) h = h * 1000003 + " + _fold(t, "e") + "; std::printf(\"%zu %llu\\n\", "
            "r.size(), h); }") if ret == "vector" else \
        f"std::printf(\"%llu\\n\", (unsigned long long){name}(in));"
    driver = " ".join(
        f"{{ const int M = {m}; std::vector<{t}> in; for (int k = 0; k < {size}; ++k) "
        f"in.push_back({make}); {show} }}"
        for m, size in ((7, 300), (100003, 400), (1, 5), (250, 0)))
    return Variant(name, code, driver)


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_generated_variants_keep_results(tmp_path: Path) -> None:
    rnd = random.Random(31)
    variants = [_seen_variant(rnd, n) for n in range(48)]
    results = compare(variants, RULES, tmp_path)
    for v in variants:
        res = results[v.name]
        assert res.rules == RULES, (v.code, res.notes)
        assert "seen_set.insert(" in res.code and res.includes == ("<unordered_set>",)
        assert "std::find" not in res.code and "std::count" not in res.code
