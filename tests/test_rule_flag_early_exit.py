"""The flag-early-exit rule: a loop that only stores one constant into a local under a
side-effect-free condition stops at the first store."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from differential_support import HAVE_GXX, Variant, compare
from perfpilot.code.locate import function_by_name
from perfpilot.optimizing.builtin import rewrite
from perfpilot.planning.builtin import analyze_site

RULES = frozenset({"flag-early-exit"})
HEAD = "#include <cstdio>\n#include <cstring>\n#include <string>\n#include <vector>\n"


def _rewritten(code: str, name: str = "f") -> tuple[str, frozenset[str]]:
    res = rewrite(function_by_name(HEAD + code, "cpp", name), RULES)
    return res.code, res.rules


def _findings(code: str, name: str = "f") -> list[str]:
    return [f.rule for f in analyze_site(function_by_name(HEAD + code, "cpp", name)).findings]


def test_a_flag_loop_breaks_after_its_store() -> None:
    code = """
bool f(const std::vector<int>& v, int x) {
    bool found = false;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (v[i] == x) {
            found = true;
        }
    }
    return found;
}
"""
    out, rules = _rewritten(code)
    assert rules == RULES
    assert "{ found = true; break; }" in out
    assert "flag-early-exit" in _findings(code)


def test_the_condition_may_read_the_flag_and_the_constant_may_be_false_or_a_number() -> None:
    code = """
int f(const int* a, int n, int lim) {
    int ok = 1;
    for (int i = 0; i < n; i++)
        if (ok && a[i] > lim) ok = 0;
    return ok;
}
"""
    out, rules = _rewritten(code)
    assert rules == RULES and "{ ok = 0; break; }" in out


@pytest.mark.parametrize(("code", "why"), [
    ("bool f(const std::vector<int>& v, int x) { bool a = false, b = false;\n"
     "  for (int i = 0; i < (int)v.size(); ++i) {\n"
     "    if (v[i] == x) a = true; if (v[i] < 0) b = true; }\n"
     "  return a && b; }", "two flags: the first store is not the last change"),
    ("int f(const std::vector<int>& v, int x) { int at = -1;\n"
     "  for (int i = 0; i < (int)v.size(); ++i) if (v[i] == x) at = i;\n"
     "  return at; }", "stores the index (the last match), not a constant"),
    ("int f(const std::vector<int>& v) { int s = 0;\n"
     "  for (int i = 0; i < (int)v.size(); ++i) if (v[i] > 0) s = 1; else s = 2;\n"
     "  return s; }", "an else branch"),
    ("int f(const std::vector<int>& v, int x) { bool found = false; int n = 0;\n"
     "  for (int i = 0; i < (int)v.size(); ++i) { if (v[i] == x) found = true; ++n; }\n"
     "  return found + n; }", "another statement"),
    ("int f(const std::vector<int>& v, int x) { bool found = false;\n"
     "  for (int i = 0; i < (int)v.size(); ++i)\n"
     "    if (v[i] == x) { found = true; std::printf(\"hit\\n\"); }\n"
     "  return found; }", "the branch prints"),
    ("int g(int);\nint f(const std::vector<int>& v, int x) { bool found = false;\n"
     "  for (int i = 0; i < (int)v.size(); ++i) if (g(v[i]) == x) found = true;\n"
     "  return found; }", "an unknown call in the condition"),
    ("int f(std::vector<int>& v, int x) { bool found = false;\n"
     "  for (int i = 0; i < (int)v.size(); ++i) if (v[i]++ == x) found = true;\n"
     "  return found; }", "the condition writes"),
    ("int f(const std::vector<int>& v, int x) { bool found = false;\n"
     "  for (int i = 0; i < (int)v.size(); ++i) if (v.at(i) == x) found = true;\n"
     "  return found; }", "at() may throw later"),
    ("int f(const std::vector<int>& v, int x) { bool found = false; int i;\n"
     "  for (i = 0; i < (int)v.size(); ++i) if (v[i] == x) found = true;\n"
     "  return found + i; }", "the counter outlives the loop"),
    ("int f(const std::vector<int>& v, int x) { bool found = false; int k = 0;\n"
     "  for (int i = 0; i < (int)v.size(); ++i, ++k) if (v[i] == x) found = true;\n"
     "  return found + k; }", "the update steps a variable declared outside"),
    ("int f(const std::vector<int>& v, int x) { bool found = false;\n"
     "  #pragma omp parallel for\n"
     "  for (int i = 0; i < (int)v.size(); ++i) if (v[i] == x) found = true;\n"
     "  return found; }", "an OpenMP loop may not break"),
    ("int f(const std::vector<int>& v, int x, bool& found) {\n"
     "  for (int i = 0; i < (int)v.size(); ++i) if (v[i] == x) found = true;\n"
     "  return found; }", "the flag is a reference parameter"),
    ("int f(const std::vector<int>& v, int x) { volatile bool found = false;\n"
     "  for (int i = 0; i < (int)v.size(); ++i) if (v[i] == x) found = true;\n"
     "  return found; }", "a volatile flag: every store is observable"),
    ("int f(const std::vector<int>& v, int x) { bool found = false;\n"
     "  for (int i = 0; i < (int)v.size(); ++i) if (v[i] == x) { found = true; break; }\n"
     "  return found; }", "already stops"),
])
def test_left_alone(code: str, why: str) -> None:
    _out, rules = _rewritten(code)
    assert rules == frozenset(), why
    assert "flag-early-exit" not in _findings(code), why


_CONDS = ("v[i] == x", "v[i] > x", "x < v[i] && v[i] % 3 == 0", "(v[i] ^ x) == 1",
          "v[i] * v[i] == x", "!flag && v[i] == x")


def _variant(rnd: random.Random, n: int) -> Variant:
    """A counter over rows: each row's flag loop in one of several shapes."""
    kind = rnd.choice(("bool", "int", "char", "long"))
    on, off = rnd.choice((("true", "false"), ("false", "true"), ("1", "0"), ("0", "1"),
                          ("-1", "2")))
    if kind == "bool":
        on, off = ("true", "false") if on in ("true", "1", "-1") else ("false", "true")
    cond = rnd.choice(_CONDS)
    header = rnd.choice((
        "for (std::size_t i = 0; i < v.size(); ++i)",
        "for (int i = 0; i < (int)v.size(); i++)",
        "for (long i = (long)v.size() - 1; i >= 0; --i)",
    ))
    braces = rnd.random() < 0.5
    store = f"flag = {on};"
    branch = f"{{ {store} }}" if braces else store
    name = f"flags{n}"
    code = (f"long long {name}(const std::vector<std::vector<int>>& rows, int x) {{\n"
            f"    long long total = 0;\n"
            f"    for (const auto& v : rows) {{\n"
            f"        {kind} flag = {off};\n"
            f"        {header}\n"
            f"            if ({cond}) {branch}\n"
            f"        total = total * 3 + (long long)flag;\n"
            f"    }}\n"
            f"    return total;\n}}\n")
    driver = ("{ std::vector<std::vector<int>> rows; for (int r = 0; r < 9; ++r) { "
              "std::vector<int> v; for (int k = 0; k < r * 2; ++k) v.push_back((k * 7 + r) % 11);"
              " rows.push_back(v); } "
              f"for (int x = -1; x < 12; ++x) std::printf(\"%lld\\n\", {name}(rows, x)); }}")
    return Variant(name, code, driver)


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_generated_variants_keep_results(tmp_path: Path) -> None:
    rnd = random.Random(41)
    variants = [_variant(rnd, n) for n in range(40)]
    results = compare(variants, RULES, tmp_path)
    for v in variants:
        res = results[v.name]
        assert "flag-early-exit" in res.rules, (v.code, res.notes)
        assert "break; }" in res.code, res.code
