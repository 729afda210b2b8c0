"""ordered-map-unneeded: a counting map (or set) whose key order nothing observes becomes a hash
table, over generated variants (key and count types, names, update and read-back forms); maps
whose order can show (ordered output, ties, returned, passed) are left alone."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from differential_support import HAVE_GXX, Variant, compare
from perfpilot.code.locate import function_by_name
from perfpilot.optimizing.builtin import rewrite

RULES = frozenset({"ordered-map-unneeded"})

_KEYS = ("int", "long", "unsigned", "std::string")
_COUNTS = ("int", "long", "std::size_t")
_UPDATES = ("{m}[{k}]++;", "++{m}[{k}];", "{m}[{k}] += 2;", "{m}[{k}] += {x} % 3;")
_READS = (
    "long {r} = 0; for (const auto& {e} : {m}) if ({e}.second > {r}) {r} = {e}.second;",
    "long {r} = 0; for (auto& [key, c] : {m}) {r} += c;",
    "long {r} = 0; for (const auto& {e} : {m}) {{ {r} = std::max({r}, (long){e}.second); }}",
    "long {r} = (long){m}.size();",
    "long {r} = {m}.count({probe}) ? (long){m}[{probe}] : -1;",
    "long {r} = 0; for (const auto& {e} : {m}) {{ if ({e}.second > 1) ++{r}; }}",
)


def _variants(count: int, seed: int) -> list[Variant]:
    rnd = random.Random(seed)
    out: list[Variant] = []
    for n in range(count):
        key, cnt = rnd.choice(_KEYS), rnd.choice(_COUNTS)
        m, x, e, r = rnd.choice(("cnt", "freq", "seen")), rnd.choice(("x", "val")), \
            rnd.choice(("kv", "p")), rnd.choice(("res", "best"))
        k = f"std::to_string({x} % 5)" if key == "std::string" else f"{x} % 9"
        probe = '"3"' if key == "std::string" else "4"
        update = rnd.choice(_UPDATES).format(m=m, k=k, x=x)
        read = rnd.choice(_READS).format(m=m, e=e, r=r, probe=probe)
        loop = rnd.choice((f"for (int {x} : v) {update}",
                           f"for (std::size_t i = 0; i < v.size(); ++i) {{ int {x} = v[i]; "
                           f"{update} }}"))
        name = f"tally{n}"
        code = (f"long {name}(const std::vector<int>& v) {{\n    std::map<{key}, {cnt}> {m};\n"
                f"    {loop}\n    {read}\n    return {r};\n}}\n")
        driver = (f"std::vector<int> in; for (int q = 0; q < 60; ++q) in.push_back((q * 37) % 23);"
                  f" std::printf(\"%ld\\n\", {name}(in));")
        out.append(Variant(name, code, driver))
    return out


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_generated_variants_keep_results(tmp_path: Path) -> None:
    variants = _variants(36, seed=11)
    results = compare(variants, RULES, tmp_path)
    for v in variants:
        res = results[v.name]
        assert "ordered-map-unneeded" in res.rules, (v.code, res.notes)
        assert "std::unordered_map<" in res.code


def _rewritten(code: str, name: str) -> tuple[str, frozenset[str], tuple[str, ...]]:
    src = "#include <map>\n#include <set>\n#include <string>\n#include <vector>\n" + code
    res = rewrite(function_by_name(src, "cpp", name), RULES)
    return res.code, res.rules, res.notes


@pytest.mark.parametrize(("code", "words"), [
    # iterated in order to print or collect: the order shows
    ("void f(const std::vector<int>& v) { std::map<int, int> m; for (int x : v) m[x]++; "
     "for (auto& kv : m) printf(\"%d %d\\n\", kv.first, kv.second); }", "order"),
    ("std::vector<int> f(const std::vector<int>& v) { std::map<int, int> m; for (int x : v) "
     "m[x]++; std::vector<int> out; for (auto& kv : m) out.push_back(kv.first); return out; }",
     "order"),
    # a tie goes to the first key seen
    ("int f(const std::vector<int>& v) { std::map<int, int> m; for (int x : v) m[x]++; "
     "int best = -1, bc = 0; for (auto& kv : m) if (kv.second > bc) { bc = kv.second; "
     "best = kv.first; } return best; }", "order"),
    # a floating sum depends on the order of its terms
    ("double f(const std::vector<int>& v) { std::map<int, double> m; for (int x : v) "
     "m[x] += 0.1; double s = 0; for (auto& kv : m) s += kv.second; return s; }", "order"),
    # the last value seen
    ("int f(const std::vector<int>& v) { std::map<int, int> m; for (int x : v) m[x]++; "
     "int last = 0; for (auto& kv : m) last = kv.second; return last; }", "order"),
    ("int f(const std::vector<int>& v) { std::map<int, int> m; for (int x : v) m[x]++; "
     "int s = 0; for (auto& kv : m) if (kv.second > s) s += kv.second; return s; }", "order"),
    # inserting while iterating
    ("int f(const std::vector<int>& v) { std::map<int, int> m; for (int x : v) m[x]++; "
     "int s = 0; for (auto& kv : m) s += m[kv.first + 1]; return s; }", "order"),
    # returned, passed elsewhere, ordered operations
    ("std::map<int, int> f(const std::vector<int>& v) { std::map<int, int> m; "
     "for (int x : v) m[x]++; return m; }", None),
    ("void g(const std::map<int, int>&); void f(const std::vector<int>& v) { "
     "std::map<int, int> m; for (int x : v) m[x]++; g(m); }", None),
    ("int f(const std::vector<int>& v) { std::map<int, int> m; for (int x : v) m[x]++; "
     "return m.begin()->first; }", None),
    ("int f(const std::vector<int>& v) { std::map<int, int> m; for (int x : v) m[x]++; "
     "auto it = m.lower_bound(3); return it == m.end() ? 0 : it->second; }", None),
    # a key std::hash does not know
    ("int f(const std::vector<int>& v) { std::map<std::pair<int, int>, int> m; "
     "for (int x : v) m[{x, x}]++; return (int)m.size(); }", None),
])
def test_left_alone(code: str, words: str | None) -> None:
    text, rules, notes = _rewritten(code, "f")
    assert "ordered-map-unneeded" not in rules, text
    assert "unordered" not in text
    if words:
        assert any(words in n for n in notes), notes


def test_set_of_seen_values_becomes_unordered_set() -> None:
    text, rules, _notes = _rewritten(
        "int f(const std::vector<int>& v) { std::set<int> s; int d = 0; "
        "for (int x : v) { if (!s.count(x)) ++d; s.insert(x); } return d; }", "f")
    assert "ordered-map-unneeded" in rules and "std::unordered_set<int> s;" in text
