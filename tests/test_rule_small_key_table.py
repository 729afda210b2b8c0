"""small-key-table: a local map keyed by a one-byte type becomes an array of 256 (or 2)
entries, over generated variants (key and value types, map and unordered_map, subscripts that
read or write, count/find/size/empty, loops over it, negative chars and wrapping keys in the
data, maps declared in a loop), built and run both ways; maps whose use an array cannot answer
exactly stay."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from differential_support import HAVE_GXX, Variant, compare
from perfpilot.code.locate import function_by_name
from perfpilot.optimizing.builtin import rewrite
from perfpilot.planning.builtin import analyze_site
from perfpilot.rules.containers.small_key_table import KeyTable

RULES = frozenset({"small-key-table"})
_BYTE_KEYS = ("char", "signed char", "unsigned char", "int8_t", "uint8_t", "std::int8_t",
              "std::uint8_t")
_VALUES = ("int", "long", "unsigned", "double", "std::size_t", "short", "long long")
# keys of other types than the key's, a floating one (0 to 120) converted through the key type
_BYTE_KEY_EXPRS = ("c", "x", "x % 13 - 6", "({K})(x * 3)", "s[i]", "c + 1", "(x + 300) * 0.2")
_BOOL_KEY_EXPRS = ("x % 3 == 0", "c < 0", "x", "(x & 4) != 0", "x * 0.5", "x & 2")
_UPDATES = ("{m}[{k}]++;", "++{m}[{k}];", "{m}[{k}] += {w};", "{m}[{k}] -= 1;",
            "{m}[{k}] = {m}[{k}] / 2 + {w};")
_PROBES = ("'a'", "-5", "200", "0", "(s.empty() ? 'x' : s.back())")
_INNER = (  # reads inside the filling loop: presence as it grows
    "if ({m}.count({k})) h = h * 3 + 1;",
    "h = h * 5 + {m}.size();",
    "if ({m}.find({p}) == {m}.end()) h += 7;",
)
_SUBSCRIPT_READS = (
    "h = h * 31 + (unsigned long long)(long long){m}[{p}];",
    "h = h * 7 + (unsigned long long)(long long)({m}[{p}] + {m}['b']);",
)
_READS = (
    "h = h * 31 + {m}.count({p});",
    "h = h * 31 + ({m}.find({p}) != {m}.end());",
    "h = h * 31 + ({m}.find({p}) == {m}.end() ? 5 : 9);",
    "h = h * 31 + {m}.size();",
    "h = h * 31 + ({m}.empty() ? 1 : 2);",
)
_FOLDS = (  # order-free: fine for an unordered_map too
    "for (const auto& [key, cnt] : {m}) {t} += (long long)cnt;",
    "for (auto& kv : {m}) ++{t};",
    "for (const auto& p : {m}) {t} += p.first;",
    "for (auto [key, cnt] : {m}) if (cnt > 1) ++{t};",
    "for (auto&& e : {m}) {{ {t} += (long long)e.second * 3; }}",
)
_ORDERED = (  # the order shows: std::map only
    "for (const auto& [key, cnt] : {m}) h = h * 131 + (unsigned long long)(long long)key * 7 "
    "+ (unsigned long long)(long long)cnt;",
    "for (auto p : {m}) {{ h = h * 131 + (unsigned char)p.first; "
    "h += (unsigned long long)(long long)p.second; }}",
    "for (auto& [key, cnt] : {m}) cnt = cnt + 1;",
    "for (const auto& kv : {m}) std::printf(\"%d:%lld \", (int)kv.first, "
    "(long long)kv.second);",
    "for (auto& e : {m}) {{ if (e.first == 'q') continue; e.second += 2; "
    "if (e.first > 100) break; }}",
)


def _variant(rnd: random.Random, n: int) -> Variant:
    key = rnd.choice((*_BYTE_KEYS, "bool"))
    value = rnd.choice(_VALUES)
    kind = rnd.choice(("std::map", "std::unordered_map"))
    m = rnd.choice(("freq", "seen", "tab"))
    exprs = _BOOL_KEY_EXPRS if key == "bool" else _BYTE_KEY_EXPRS
    k = rnd.choice(exprs).replace("{K}", key)
    w = "x * 0.5" if value == "double" else "(x % 5 + 5)"
    update = rnd.choice(_UPDATES).format(m=m, k=k, w=w)
    p = "true" if key == "bool" and rnd.random() < 0.5 else rnd.choice(_PROBES)
    body = [update]
    plain = rnd.random() < 0.25  # a histogram read back by subscripts: no presence array
    if rnd.random() < 0.3 and not plain:
        body.append(rnd.choice(_INNER).format(m=m, k=rnd.choice(exprs).replace("{K}", key),
                                              p=rnd.choice((p, "c"))))
    reads: list[str] = []
    for j in range(rnd.randrange(1, 4)):
        pick = rnd.random()
        if plain:
            reads.append(rnd.choice(_SUBSCRIPT_READS).format(m=m, p=p))
        elif pick < 0.4:
            reads.append(rnd.choice(_READS).format(m=m, p=p))
        elif pick < 0.75 or kind == "std::unordered_map":
            t = f"t{j}"
            reads.append(f"long long {t} = 0; " + rnd.choice(_FOLDS).format(m=m, t=t)
                         + f" h = h * 31 + (unsigned long long){t};")
        else:
            reads.append(rnd.choice(_ORDERED).format(m=m))
    fill = (f"for (std::size_t i = 0; i < s.size(); ++i) {{ char c = s[i]; "
            f"int x = v[i % v.size()]; {' '.join(body)} }}")
    decl = f"{kind}<{key}, {value}> {m};"
    name = f"table{n}"
    if rnd.random() < 0.25:  # declared in a loop: a fresh, empty map on every pass
        inner = "\n        ".join([decl, fill.replace("int x = v[i % v.size()];",
                                                        "int x = v[i % v.size()] + rep;"),
                                   *reads])
        core = f"for (int rep = 0; rep < 3; ++rep) {{\n        {inner}\n    }}"
    else:
        core = "\n    ".join([decl, fill, *reads])
    code = (f"unsigned long long {name}(const std::string& s, const std::vector<int>& v) {{\n"
            f"    unsigned long long h = 0;\n    {core}\n    return h;\n}}\n")
    driver = ("std::string s; for (int b = 0; b < 256; ++b) s.push_back((char)((b * 77 + 13) "
              "% 256)); for (int b = 0; b < 90; ++b) s.push_back((char)(b % 7 - 3)); "
              "std::vector<int> v; for (int q = 0; q < 37; ++q) v.push_back((q * 53) % 601 - 300);"
              f" std::printf(\"%llu\\n\", {name}(s, v)); std::printf(\"%llu\\n\", {name}("
              "std::string(\"abcabcq\\xff\\x80\"), std::vector<int>{-1, 0, 255, 256, -129}));")
    return Variant(name, code, driver)


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_generated_variants_keep_results(tmp_path: Path) -> None:
    rnd = random.Random(23)
    variants = [_variant(rnd, n) for n in range(90)]
    results = compare(variants, RULES, tmp_path)
    for v in variants:
        res = results[v.name]
        assert "small-key-table" in res.rules, (v.code, res.notes)
        assert "std::map<" not in res.code and "unordered_map<" not in res.code, res.code


def _rewritten(code: str, name: str = "f") -> tuple[str, frozenset[str], tuple[str, ...]]:
    src = ("#include <cstdint>\n#include <cstdio>\n#include <map>\n#include <string>\n"
           "#include <unordered_map>\n#include <vector>\n" + code)
    res = rewrite(function_by_name(src, "cpp", name), RULES)
    return res.code, res.rules, res.notes


def _findings(code: str, name: str = "f") -> list[str]:
    src = "#include <map>\n#include <string>\n#include <unordered_map>\n#include <vector>\n" + code
    return [f.rule for f in analyze_site(function_by_name(src, "cpp", name)).findings]


_FILL = "for (char c : s) m[c]++; "


@pytest.mark.parametrize(("code", "words"), [
    # escapes: passed, returned, aliased, copied, address taken, captured
    ("void g(const std::map<char, int>&); void f(const std::string& s) { std::map<char, int> m; "
     + _FILL + "g(m); }", "used whole"),
    ("std::map<char, int> f(const std::string& s) { std::map<char, int> m; " + _FILL
     + "return m; }", "used whole"),
    ("int f(const std::string& s) { std::map<char, int> m; auto& r = m; " + _FILL
     + "return r['a']; }", "used whole"),
    ("int f(const std::string& s) { std::map<char, int> m; " + _FILL
     + "std::map<char, int> c = m; return c['a']; }", "used whole"),
    ("int f(const std::string& s) { std::map<char, int> m; " + _FILL
     + "std::map<char, int>* p = &m; return (*p)['a']; }", "used whole"),
    ("int f(const std::string& s) { std::map<char, int> m; auto bump = [&](char c) { m[c]++; };"
     " for (char c : s) bump(c); return m['a']; }", "lambda"),
    # members an array does not answer
    ("int f(const std::string& s) { std::map<char, int> m; " + _FILL
     + "m.erase('a'); return (int)m.size(); }", "erase"),
    ("int f(const std::string& s) { std::map<char, int> m; " + _FILL
     + "return m.at('a'); }", "at"),
    ("int f(const std::string& s) { std::map<char, int> m; m.insert({'a', 1}); " + _FILL
     + "return m['a']; }", "insert"),
    # iterators
    ("int f(const std::string& s) { std::map<char, int> m; " + _FILL + "int t = 0; "
     "for (auto it = m.begin(); it != m.end(); ++it) t += it->second; return t; }", "begin"),
    ("int f(const std::string& s) { std::map<char, int> m; " + _FILL
     + "auto it = m.find('a'); return it == m.end() ? 0 : it->second; }", "iterator"),
    ("int f(const std::string& s) { std::map<char, int> m; " + _FILL
     + "auto it = m.lower_bound('a'); return it == m.end() ? 0 : it->second; }",
     "lower_bound"),
    # loops over it that an array loop would not reproduce
    ("int f(const std::string& s) { std::map<char, int> m; " + _FILL + "int t = 0; "
     "for (auto& [k, v] : m) t += m[k + 1]; return t; }", "inside"),
    ("int f(const std::string& s) { std::map<char, int> m; " + _FILL + "int t = 0; "
     "for (const std::pair<const char, int>& p : m) t += p.second; return t; }", "auto"),
    ("void use(const std::pair<const char, int>&); void f(const std::string& s) { "
     "std::map<char, int> m; " + _FILL + "for (auto& p : m) use(p); }", "other than"),
    ("std::vector<int*> f(const std::string& s) { std::map<char, int> m; " + _FILL
     + "std::vector<int*> out; for (auto& [k, v] : m) out.push_back(&v); return out; }",
     "address"),
    # an unordered_map whose order shows
    ("void f(const std::string& s) { std::unordered_map<char, int> m; " + _FILL
     + "for (auto& [k, v] : m) std::printf(\"%c %d\\n\", k, v); }", "unspecified order"),
    ("int f(const std::string& s) { std::unordered_map<char, int> m; " + _FILL
     + "int last = 0; for (auto& [k, v] : m) last = v; return last; }", "unspecified order"),
    ("double f(const std::string& s) { std::unordered_map<char, double> m; "
     "for (char c : s) m[c] += 0.1; double t = 0; for (auto& [k, v] : m) t += v; return t; }",
     "unspecified order"),
    # value types that are not arithmetic
    ("int f(const std::string& s) { std::map<char, std::string> m; for (char c : s) "
     "m[c] += c; return (int)m['a'].size(); }", "not arithmetic"),
    ("int f(const std::string& s) { std::map<char, std::vector<int>> m; for (char c : s) "
     "m[c].push_back(1); return (int)m['a'].size(); }", "not arithmetic"),
    # declarations an empty array does not stand for
    ("int f(const std::string& s) { static std::map<char, int> m; " + _FILL
     + "return m['a']; }", "static"),
    ("int f(const std::string& s) { std::map<char, int> m{{'a', 1}}; " + _FILL
     + "return m['a']; }", "initialised"),
    ("int f(const std::string& s) { std::map<char, int> m, n; " + _FILL
     + "return m['a'] + n['b']; }", "more than one"),
    ("int f(const std::string& s) { std::map<char, int> m; " + _FILL
     + "{ int m = 3; return m; } }", "used whole"),
])
def test_left_alone(code: str, words: str) -> None:
    text, rules, notes = _rewritten(code)
    assert "small-key-table" not in rules, text
    assert "_val[" not in text
    assert any(words in n for n in notes), notes
    assert "small-key-table" not in _findings(code)


@pytest.mark.parametrize("code", [
    # keys with more than 256 values, or maps with their own comparator or hash
    "int f(const std::vector<int>& v) { std::map<int, int> m; for (int x : v) m[x]++; "
    "return m[3]; }",
    "int f(const std::string& s) { std::map<std::string, int> m; m[s]++; return m[s]; }",
    "int f(const std::vector<short>& v) { std::map<short, int> m; for (short x : v) m[x]++; "
    "return m[3]; }",
    "int f(const std::string& s) { std::map<char, int, std::greater<char>> m; "
    "for (char c : s) m[c]++; int t = 0; for (auto& [k, v] : m) t = t * 3 + k; return t; }",
    "int f(const std::string& s) { std::set<char> m; for (char c : s) m.insert(c); "
    "return (int)m.size(); }",
])
def test_other_keys_and_containers_are_not_candidates(code: str) -> None:
    _text, rules, notes = _rewritten("#include <set>\n#include <functional>\n" + code)
    assert "small-key-table" not in rules and not any("small-key-table" in n for n in notes)
    assert "small-key-table" not in _findings("#include <set>\n#include <functional>\n" + code)


def test_a_plain_histogram_is_one_array_without_presence() -> None:
    text, rules, _ = _rewritten(
        "long f(const std::string& s) { std::map<char, long> hist; for (char c : s) "
        "hist[c] += 2; return hist['a'] + hist[-3] + hist[200]; }")
    assert rules == RULES
    assert "long hist_val[256] = {};" in text
    assert "_has" not in text and "[&]" not in text  # nothing observes presence
    assert "hist_val[static_cast<unsigned char>(c)] += 2" in text
    assert "hist_val[static_cast<unsigned char>(-3)]" in text and "hist_val[200]" in text


def test_presence_is_kept_where_it_shows() -> None:
    text, rules, _ = _rewritten(
        "int f(const std::string& s) { std::unordered_map<unsigned char, int> m; "
        "for (char c : s) if (m.find(c) == m.end()) m[c] = 1; "
        "return (int)m.size() + (int)m.count('x') + (m.empty() ? 7 : 0); }")
    assert rules == RULES
    assert "bool m_has[256] = {};" in text and "std::size_t m_size = 0;" in text
    assert "(!m_has[static_cast<unsigned char>(c)])" in text
    assert "m_at(static_cast<unsigned char>(c)) = 1" in text
    assert "static_cast<std::size_t>(m_has[static_cast<unsigned char>('x')])" in text
    assert "(int)m_size" in text and "(m_size == 0)" in text


def test_a_key_of_another_type_is_converted_to_the_key_type_first() -> None:
    text, rules, _ = _rewritten(
        "int f(const std::vector<double>& v) { std::map<signed char, int> m; "
        "for (double d : v) m[d]++; int t = 0; for (auto& [k, c] : m) t = t * 7 + k * c; "
        "return t; }")
    assert rules == RULES
    assert "m_at(static_cast<unsigned char>(static_cast<signed char>(d)))" in text
    assert "std::numeric_limits<signed char>::min()" in text
    assert "const signed char k = static_cast<signed char>(m_key);" in text
    assert "int& c = m_val[static_cast<unsigned char>(m_key)];" in text


def test_bool_keys_get_two_entries() -> None:
    text, rules, _ = _rewritten(
        "int f(const std::vector<int>& v) { std::map<bool, int> m; for (int x : v) "
        "m[x % 2 == 0] += x; return m[true] - m[false]; }")
    assert rules == RULES
    assert "int m_val[2] = {};" in text
    assert "m_val[x % 2 == 0] += x" in text and "m_val[true]" in text
    text, rules, _ = _rewritten(
        "int f(const std::vector<int>& v) { std::map<bool, int> m; for (int x : v) "
        "m[x & 1]++; return m[1]; }")
    assert "m_val[static_cast<bool>(x & 1)]++" in text and "m_val[static_cast<bool>(1)]" in text


def test_an_order_free_fold_over_an_unordered_map_is_rewritten() -> None:
    text, rules, _ = _rewritten(
        "long f(const std::string& s) { std::unordered_map<char, long> m; for (char c : s) "
        "m[c]++; long best = 0, kinds = 0; for (const auto& p : m) { if (p.second > best) "
        "best = p.second; ++kinds; } return best * 1000 + kinds; }")
    assert rules == RULES
    assert "const long& p_second = m_val[static_cast<unsigned char>(m_key)];" in text
    assert "if (p_second > best) best = p_second;" in text
    assert "p.first" not in text and "const char p_first" not in text  # unused: not declared


def test_names_the_function_uses_are_not_reused() -> None:
    text, rules, _ = _rewritten(
        "int f(const std::string& s) { int m_val = 1; std::map<char, int> m; "
        "for (char c : s) m[c]++; return m['z'] + m_val; }")
    assert rules == RULES
    assert "int m_val2[256] = {};" in text and "m_val2[static_cast<unsigned char>('z')]" in text


def test_detection_explains_and_names_the_uses() -> None:
    src = ("#include <map>\n#include <string>\nint f(const std::string& s) {\n"
           "    std::map<char, int> freq;\n    for (char c : s) ++freq[c];\n"
           "    return freq.count('e') ? freq['e'] : -1;\n}\n")
    found = [f for f in analyze_site(function_by_name(src, "cpp", "f")).findings
             if f.rule == "small-key-table"]
    assert len(found) == 1
    f = found[0]
    assert f.lines[0] == 4 and f.category_id == 2
    assert isinstance(f.proof, KeyTable) and f.proof.table.entries == 256
    assert "`freq`" in f.explanation and "256" in f.explanation
    assert "tree walk" in f.explanation and "`count`" in f.explanation


def test_ordered_map_unneeded_leaves_small_key_maps_to_the_array() -> None:
    code = ("int f(const std::string& s) { std::map<char, int> m; for (char c : s) m[c]++; "
            "return m.count('a') ? m['a'] : 0; }")
    assert "ordered-map-unneeded" not in _findings(code)
    src = "#include <map>\n#include <string>\n" + code
    res = rewrite(function_by_name(src, "cpp", "f"), {"ordered-map-unneeded"})
    assert not res.changed  # not made a hash table when an array replaces it
    both = rewrite(function_by_name(src, "cpp", "f"),
                   {"ordered-map-unneeded", "small-key-table"})
    assert both.rules == RULES and "unordered" not in both.code


def test_a_small_key_map_the_array_cannot_take_may_still_become_a_hash_table() -> None:
    code = ("int f(const std::string& s) { std::map<char, int> m; for (char c : s) m[c]++; "
            "return m.at('a'); }")
    rules = _findings(code)
    assert "small-key-table" not in rules and "ordered-map-unneeded" in rules
    src = "#include <map>\n#include <string>\n" + code
    res = rewrite(function_by_name(src, "cpp", "f"),
                  {"ordered-map-unneeded", "small-key-table"})
    assert res.rules == {"ordered-map-unneeded"}
    assert "std::unordered_map<char, int> m;" in res.code
