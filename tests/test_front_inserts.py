"""Loops that only add to the front of a local vector or string
(``rules/containers/front_inserts.py``, the vector-front-op rewrite): they push onto a scratch
container and put it, reversed, in front once after the loop. The forms, what must stay, and a g++
differential over generated
loops that fails when the scratch container goes in unreversed."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from differential_support import HAVE_GXX, Variant, compare, rewrite_all, rewritten_code
from perfpilot.code.locate import function_by_name
from perfpilot.planning.builtin import analyze_site

HEAD = "#include <string>\n#include <vector>\n"
RULES = frozenset({"vector-front-op"})



@pytest.mark.parametrize(("code", "expected"), [
    ("std::string f(const std::string& s) { std::string r; for (char c : s) r = c + r; "
     "return r; }", "r_front.push_back(c);"),
    ("std::string f(int n) { std::string r = \"end\"; for (int i = 0; i < n; ++i) "
     "{ r = std::to_string(i) + r; } return r; }",
     "{ const std::string& r_piece = std::to_string(i); "
     "r_front.append(r_piece.rbegin(), r_piece.rend()); }"),
    ("std::vector<int> f(const std::vector<int>& a) { std::vector<int> v{7}; for (int x : a) "
     "{ if (x < 0) break; v.insert(v.begin(), x * 2); } return v; }",
     "v_front.push_back(x * 2);"),
    ("std::string f(const char* w, int n) { std::string r; for (int i = 0; i < n; ++i) "
     "for (int j = 0; j < 2; ++j) r = w + r; return r; }",
     "{ const std::string& r_piece = w; r_front.append(r_piece.rbegin(), r_piece.rend()); }"),
])
def test_front_inserts_go_to_a_scratch_container(code: str, expected: str) -> None:
    got = rewritten_code(HEAD + code, RULES)
    assert expected in got, got
    name = "v" if "v_front" in got else "r"
    assert f"{name}.insert({name}.begin(), {name}_front.rbegin(), {name}_front.rend());" in got


def test_the_finding_names_a_string_prepend() -> None:
    code = HEAD + ("std::string f(const std::string& s) {\n    std::string r;\n"
                   "    for (char c : s) r = c + r;\n    return r;\n}\n")
    (finding,) = [f for f in analyze_site(function_by_name(code, "cpp", "f")).findings
                  if f.rule == "vector-front-op"]
    assert "`r = c + r`" in finding.explanation and finding.lines[0] == 5


@pytest.mark.parametrize("code", [
    # not a local the function owns
    "void f(std::string& r, const std::string& s) { for (char c : s) r = c + r; }",
    "std::string f(const std::string& s) { static std::string r; for (char c : s) r = c + r; "
    "return r; }",
    # read, or added to otherwise, in the loop
    "std::string f(const std::string& s) { std::string r; for (char c : s) { r = c + r; "
    "if (r.size() > 4) break; } return r; }",
    "std::string f(const std::string& s) { std::string r; for (char c : s) { r = c + r; "
    "r += c; } return r; }",
    # a way out that skips the end of the loop
    "std::string f(const std::string& s) { std::string r; for (char c : s) { if (c == 0) "
    "return r; r = c + r; } return r; }",
    # something else can reach it
    "std::string f(const std::string& s) { std::string r; std::string& a = r; for (char c : s)"
    " r = c + r; return a; }",
    "std::string f(const std::string& s) { std::string r; auto g = [&] { return r.size(); }; "
    "for (char c : s) { r = c + r; g(); } return r; }",
    "std::string f(const std::string& s) { std::string r; try { for (char c : s) r = c + r; } "
    "catch (...) { return r; } return r; }",
    # declared in the loop; the piece reads it; two elements at once; an unknown piece type
    "int f(const std::string& s) { int n = 0; for (char c : s) { std::string r; r = c + r; "
    "n += r.size(); } return n; }",
    "std::string f(const std::string& s) { std::string r = \"x\"; for (char c : s) "
    "r = r.substr(0, 1) + r; return r; }",
    "std::vector<int> f(int n) { std::vector<int> v; for (int i = 0; i < n; ++i) "
    "v.insert(v.begin(), {i, i}); return v; }",
    "std::string g(int); std::string f(int n) { std::string r; for (int i = 0; i < n; ++i) "
    "r = g(i) + r; return r; }",
])
def test_other_loops_stay(code: str) -> None:
    assert rewritten_code(HEAD + code, RULES) == ""


# -- differential ---------------------------------------------------------------------------

def _variants(seed: int, count: int) -> list[Variant]:
    rnd = random.Random(seed)
    out: list[Variant] = []
    for k in range(count):
        name = f"fi{k}"
        kind = rnd.choice(("char", "string", "literal", "vector", "string-insert"))
        start = rnd.choice(("", "\"ab\""))
        loop = rnd.choice(("for (int i = 0; i < n; ++i)", "for (int i = n; i-- > 0;)",
                           "for (int i = 0; i < n; ++i) for (int j = 0; j < 2; ++j)"))
        guard = rnd.choice(("", "if (i % 3 == 1) continue; ", "if (i > 40) break; "))
        if kind == "vector":
            decl, ret, show = (f"std::vector<long> r{{{rnd.randint(0, 9)}}};", "long",
                               "for (long x : r) h = h * 31 + (unsigned long)x;")
            add = "r.insert(r.begin(), i * 7L - 3);"
        else:
            decl, ret, show = (f"std::string r{{{start}}};", "char",
                               "for (char x : r) h = h * 31 + (unsigned char)x;")
            add = {"char": "r = char('a' + i % 26) + r;",
                   "string": "r = std::to_string(i) + r;",
                   "literal": "r = \"<>\" + r;",
                   "string-insert": "r.insert(r.begin(), char('A' + i % 7));"}[kind]
        code = (f"unsigned long {name}(int n) {{\n    {decl}\n    {loop} {{ {guard}{add} }}\n"
                f"    unsigned long h = r.size();\n    {show}\n    return h; // {ret}\n}}\n")
        calls = " ".join(f"std::printf(\"%lu\\n\", {name}({n}));" for n in (0, 1, 5, 60))
        out.append(Variant(name, code, calls))
    return out


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_rewritten_loops_build_the_same_containers(tmp_path: Path) -> None:
    variants = _variants(5, 50)
    results = compare(variants, RULES, tmp_path)
    assert all("vector-front-op" in r.rules for r in results.values()), \
        [n for n, r in results.items() if "vector-front-op" not in r.rules]


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_the_scratch_container_put_in_unreversed_changes_results(tmp_path: Path) -> None:
    variants = _variants(5, 50)
    unit, new_unit, _ = rewrite_all(variants, RULES)
    broken = new_unit.replace("_front.rbegin(), ", "_front.begin(), ").replace(
        "_front.rend());", "_front.end());")
    assert broken != new_unit
    drivers = "\n".join(f"    {{ std::printf(\"== {v.name}\\n\"); {v.driver} }}"
                        for v in variants)
    outputs = []
    for tag, text in (("orig", unit), ("broken", broken)):
        src = tmp_path / f"{tag}.cpp"
        src.write_text(text + "\nint main() {\n" + drivers + "\n    return 0;\n}\n")
        subprocess.run(["g++", "-std=c++17", "-O1", "-o", str(tmp_path / tag), str(src)],
                       check=True, capture_output=True, timeout=300)
        outputs.append(subprocess.run([str(tmp_path / tag)], capture_output=True, text=True,
                                      check=True, timeout=120).stdout)
    assert outputs[0] != outputs[1]
