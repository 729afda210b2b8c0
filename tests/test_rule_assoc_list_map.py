"""The assoc-list-map rule (``rules/search/assoc_list.py``): a local vector of pairs searched by key
from the front gets a key-to-position hash map beside it. The forms, what must stay, and a g++
differential over generated association lists that fails when the map names the last pair of
a key instead of the first, or a wrong position."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from differential_support import HAVE_GXX, Variant, compare, rewrite_all, rewritten_code
from perfpilot.code.locate import function_by_name
from perfpilot.planning.builtin import analyze_site
from perfpilot.rules.search.assoc_list_map import AssocListProof

HEAD = "#include <algorithm>\n#include <string>\n#include <utility>\n#include <vector>\n"
RULES = frozenset({"assoc-list-map"})
RULE = "assoc-list-map"

WORDS = """int f(const std::vector<std::string>& words) {
    std::vector<std::pair<std::string, int>> freq;
    for (const auto& w : words) {
        bool found = false;
        for (auto& p : freq) if (p.first == w) { ++p.second; found = true; break; }
        if (!found) freq.push_back({w, 1});
    }
    int best = 0;
    for (auto& p : freq) best = std::max(best, p.second);
    return best;
}"""



@pytest.mark.parametrize(("code", "expected"), [
    (WORDS, "auto & p = freq[freq_at->second]; ++p.second; found = true; } }"),
    ("long f(const std::vector<int>& a) { std::vector<std::pair<int, long>> v; "
     "for (int x : a) { int k = x % 10; bool hit = false; "
     "for (std::size_t i = 0; i < v.size(); ++i) { if (v[i].first == k) { v[i].second += x; "
     "hit = true; break; } } if (!hit) v.emplace_back(k, x); } "
     "long s = 0; for (const auto& p : v) s = s * 3 + p.second; return s; }",
     "std::size_t i = static_cast<std::size_t>(v_at->second); v[i].second += x;"),
    ("int f(const std::vector<long>& a) { std::vector<std::pair<long, int>> v; "
     "for (std::size_t j = 0; j < a.size(); ++j) { bool hit = false; "
     "for (auto p : v) if (a[j] == p.first) { hit = true; break; } "
     "if (!hit) v.push_back(std::make_pair(a[j], 0)); } return (int)v.size(); }",
     "auto p = v[v_at->second]; hit = true; } }"),
])
def test_key_searches_use_the_map(code: str, expected: str) -> None:
    got = rewritten_code(HEAD + code, RULES)
    assert expected in got, got
    assert "std::unordered_map<" in got and ".emplace(" in got and ".back().first, " in got


def test_the_finding_names_the_search() -> None:
    (finding,) = [f for f in analyze_site(function_by_name(HEAD + WORDS, "cpp", "f")).findings
                  if f.rule in (RULE, "linear-search-in-loop")]
    assert finding.rule == RULE and finding.lines[0] == 9 and "`w`" in finding.explanation


def test_one_finding_names_every_scan_of_one_list_and_one_map_serves_them() -> None:
    code = HEAD + """int f(const std::vector<std::string>& words,
      const std::vector<std::string>& more) {
    std::vector<std::pair<std::string, int>> freq;
    for (const auto& w : words) {
        bool found = false;
        for (auto& p : freq) if (p.first == w) { ++p.second; found = true; break; }
        if (!found) freq.push_back({w, 1});
    }
    int hits = 0;
    for (const auto& m : more) {
        for (auto& p : freq) if (p.first == m) { hits += p.second; break; }
    }
    return hits;
}"""
    (finding,) = [f for f in analyze_site(function_by_name(code, "cpp", "f")).findings
                  if f.rule == RULE]
    assert isinstance(finding.proof, AssocListProof) and len(finding.proof.assoc.scans) == 2
    assert finding.lines[:2] == (10, 15)
    got = rewritten_code(code, RULES)
    assert got.count("std::unordered_map<") == 1 and got.count("freq_index.find(") == 2, got


@pytest.mark.parametrize("code", [
    # keys whose hash equality is not ==
    WORDS.replace("std::string, int", "double, int").replace("std::vector<std::string>",
                                                              "std::vector<double>"),
    # the key type differs from the searched value's (the comparison converts)
    WORDS.replace("std::vector<std::string>&", "std::vector<const char*>&"),
    "int f(const std::vector<long>& a) { std::vector<std::pair<int, int>> v; for (long x : a) "
    "{ bool h = false; for (auto& p : v) if (p.first == x) { h = true; break; } "
    "if (!h) v.push_back({(int)x, 1}); } return (int)v.size(); }",
    # no break: every equal key is visited
    WORDS.replace("found = true; break; }", "found = true; }"),
    # an else branch, or another jump in the branch
    WORDS.replace("found = true; break; }", "found = true; break; } else { ++p.second; }"),
    WORDS.replace("++p.second; found", "if (p.second > 3) continue; ++p.second; found"),
    # the vector changes otherwise: erase, sort, a key written, an insert, cleared
    WORDS.replace("    int best = 0;", "    freq.erase(freq.begin());\n    int best = 0;"),
    WORDS.replace("if (!found) freq.push_back({w, 1});",
                  "if (!found) freq.push_back({w, 1}); std::sort(freq.begin(), freq.end());"),
    WORDS.replace("++p.second; found", "p.first += \"x\"; found"),
    WORDS.replace("if (!found) freq.push_back({w, 1});",
                  "if (!found) freq.insert(freq.begin(), {w, 1});"),
    WORDS.replace("if (!found) freq.push_back({w, 1});",
                  "if (!found) freq.push_back({w, 1}); if (freq.size() > 9) freq.clear();"),
    WORDS.replace("for (auto& p : freq) best", "for (auto& p : freq) p.first = \"\"; "
                  "for (auto& p : freq) best"),
    # something else can reach it
    WORDS.replace("    for (const auto& w", "    auto& alias = freq;\n    for (const auto& w"),
    WORDS.replace("    for (const auto& w", "    auto g = [&] { freq.clear(); };\n"
                  "    for (const auto& w"),
    "void g(std::vector<std::pair<int, int>>&);" + WORDS.replace(
        "int best = 0;", "int best = 0; g(freq);").replace(
        "std::string, int>> freq", "int, int>> freq").replace(
        "std::vector<std::string>&", "std::vector<int>&"),
    # not a fresh local vector
    "int f(std::vector<std::pair<int, int>>& v, const std::vector<int>& a) { for (int x : a) "
    "{ bool h = false; for (auto& p : v) if (p.first == x) { ++p.second; h = true; break; } "
    "if (!h) v.push_back({x, 1}); } return (int)v.size(); }",
    # exceptions caught
    WORDS.replace("    for (const auto& w : words) {", "    try { for (const auto& w : words) {")
    .replace("    int best = 0;", "    } catch (...) {}\n    int best = 0;"),
])
def test_other_searches_stay(code: str) -> None:
    assert rewritten_code(HEAD + code, RULES) == ""


# -- differential ---------------------------------------------------------------------------


_INPUTS = ("{}", "{4}", "{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4}",
           "{7, 7, 7, 0, 14, 21, 7}")


def _variants(seed: int, count: int) -> list[Variant]:
    rnd = random.Random(seed)
    out: list[Variant] = []
    for n in range(count):
        name = f"al{n}"
        key = rnd.choice(("int", "long", "std::string", "unsigned"))
        val = rnd.choice(("int", "long", "std::string"))
        mod = rnd.choice((3, 5, 11))
        kexpr = f"std::to_string(x % {mod})" if key == "std::string" else \
            f"({key})(x % {mod})"
        init = "std::to_string(x)" if val == "std::string" else "x"
        form = rnd.choice(("ref", "typed", "index", "int-index"))
        if form in ("ref", "typed"):
            elem = "p"
            head = "for (auto& p : v)" if form == "ref" else \
                f"for (std::pair<{key}, {val}>& p : v)"
        else:
            elem = "v[i]"
            head = ("for (std::size_t i = 0; i < v.size(); ++i)" if form == "index" else
                    "for (int i = 0; i < (int)v.size(); ++i)")
        update = rnd.choice((f"{elem}.second += {init};", f"{elem}.second = {init};",
                             f"{elem}.second = {elem}.second + {elem}.second;"
                             if val != "std::string" else f"{elem}.second += \"+\";",
                             ""))
        flag = rnd.choice(("found", "counter"))
        mark = "found = true;" if flag == "found" else "++hits;"
        cmp = rnd.choice((f"{elem}.first == k", f"k == {elem}.first"))
        append = rnd.choice((f"v.push_back({{k, {init}}});", f"v.emplace_back(k, {init});",
                             f"v.push_back(std::make_pair(k, {init}));"))
        tail = f"if ({'!found' if flag == 'found' else 'hits == before'}) {append}"
        dup = rnd.choice(("", "", f"if (x % 4 == 0) v.push_back({{k, {init}}});"))
        body = (f"{key} k = {kexpr}; bool found = false; long before = hits; (void)before; "
                f"(void)found; {head} {{ if ({cmp}) {{ {update} {mark} break; }} }} {tail} "
                f"{dup}")
        show = ("h = h * 31 + std::hash<std::string>()(std::string() + "
                + ("p.first" if key == "std::string" else "std::to_string(p.first)")
                + ") + std::hash<std::string>()(std::string() + "
                + ("p.second" if val == "std::string" else "std::to_string(p.second)")
                + ");")
        code = (f"unsigned long {name}(const std::vector<int>& a) {{\n"
                f"    std::vector<std::pair<{key}, {val}>> v;\n    long hits = 0;\n"
                f"    for (int x : a) {{ {body} }}\n"
                f"    unsigned long h = v.size() * 1000 + (unsigned long)hits;\n"
                f"    for (const auto& p : v) {{ {show} }}\n    return h;\n}}\n")
        calls = " ".join(f"std::printf(\"%lu\\n\", {name}(std::vector<int>{v}));"
                         for v in _INPUTS)
        out.append(Variant(name, code, calls))
    return out


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_rewritten_lists_compute_the_same(tmp_path: Path) -> None:
    variants = _variants(3, 48)
    results = compare(variants, RULES, tmp_path)
    assert all(RULE in r.rules for r in results.values()), \
        [n for n, r in results.items() if RULE not in r.rules]


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
@pytest.mark.parametrize("breakage", ["last-pair", "position"])
def test_a_wrong_map_changes_results(tmp_path: Path, breakage: str) -> None:
    variants = _variants(3, 48)
    unit, new_unit, _ = rewrite_all(variants, RULES)
    if breakage == "last-pair":  # overwrite: the map names the last pair of a key
        broken = new_unit.replace("v_index.emplace(v.back().first, v.size() - 1);",
                                  "v_index[v.back().first] = v.size() - 1;")
    else:
        broken = new_unit.replace("v.size() - 1);", "v.size() / 2);")
    assert broken != new_unit
    drivers = "\n".join(f"    {{ std::printf(\"== {v.name}\\n\"); {v.driver} }}"
                        for v in variants)
    outputs = []
    for tag, text in (("orig", unit), ("broken", broken)):
        src = tmp_path / f"{tag}.cpp"
        src.write_text(text + "\nint main() {\n" + drivers + "\n    return 0;\n}\n")
        subprocess.run(["g++", "-std=c++17", "-O1", "-o", str(tmp_path / tag), str(src)],
                       check=True, capture_output=True, timeout=300)
        run = subprocess.run([str(tmp_path / tag)], capture_output=True, text=True,
                             timeout=120)
        outputs.append((run.returncode, run.stdout))
    assert outputs[0][0] == 0 and outputs[0] != outputs[1]
