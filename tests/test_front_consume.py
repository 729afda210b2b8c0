"""Loops consuming a local string or vector from the front (``rules/containers/front_consume.py``,
the vector-front-op rewrite): they read the unchanged container through an offset and erase the
consumed prefix once after the loop when it is still observed. The forms, what must stay, and
a g++ differential over generated loops that fails when the prefix is not erased afterwards or
the size is read without the offset."""

from __future__ import annotations

import random
import re
import subprocess
from pathlib import Path

import pytest

from differential_support import HAVE_GXX, Variant, compare, rewrite_all, rewritten_code
from perfpilot.code.locate import function_by_name
from perfpilot.planning.builtin import analyze_site

HEAD = "#include <string>\n#include <vector>\n"
RULES = frozenset({"vector-front-op"})



@pytest.mark.parametrize(("code", "expected", "restored"), [
    ("long f(std::string s) { long t = 0; while (!s.empty()) { t += s[0]; s.erase(0, 1); } "
     "return t; }", "t += s[s_head]; ++s_head;", False),
    ("long f(std::string s) { long t = 0; while (s.size() > 0) { t += s.front() * s.size(); "
     "s = s.substr(1); } return t; }", "t += s[s_head] * (s.size() - s_head); ++s_head;",
     False),
    ("std::vector<int> f(std::vector<int> v) { while (!v.empty() && v[0] != 0) "
     "{ v.erase(v.begin()); } return v; }", "v[v_head]",
     True),
    ("int f(const std::string& in) { std::string s = in; int n = 0; while (s.length() != 0) "
     "{ if (s[0] == 'x') break; s.erase(s.begin()); ++n; } return n + (int)s.size(); }",
     "++s_head;", True),
])
def test_front_consumes_become_an_offset(code: str, expected: str, restored: bool) -> None:
    got = rewritten_code(HEAD + code, RULES)
    assert expected in got, got
    assert ("erase(" in got) == restored, got


def test_the_finding_names_the_consume() -> None:
    code = HEAD + ("long f(std::string s) {\n    long t = 0;\n    while (!s.empty()) {\n"
                   "        t += s[0];\n        s.erase(0, 1);\n    }\n    return t;\n}\n")
    (finding,) = [f for f in analyze_site(function_by_name(code, "cpp", "f")).findings
                  if f.rule == "vector-front-op"]
    assert "`s.erase(0, 1);`" in finding.explanation and finding.lines[0] == 7


@pytest.mark.parametrize("code", [
    # not a local or by-value container
    "long f(std::string& s) { long t = 0; while (!s.empty()) { t += s[0]; s.erase(0, 1); } "
    "return t; }",
    "long f(std::string* p) { std::string& s = *p; long t = 0; while (!s.empty()) "
    "{ t += s[0]; s.erase(0, 1); } return t; }",
    # (without a non-empty guard, or two characters at a time, a string's consume takes the
    # prefix form: tests/test_front_consume_prefix.py)
    # the consume is conditional, or there are two
    "long f(std::string s) { long t = 0; while (!s.empty()) { t += s[0]; if (t > 9) "
    "s.erase(0, 1); else s.erase(0, 1); } return t; }",
    "long f(std::string s) { long t = 0; while (!s.empty()) { t += s[0]; s.erase(0, 1); "
    "s.erase(0, 1); } return t; }",
    # other uses an offset cannot follow
    "long f(std::string s) { long t = 0; while (!s.empty()) { t += s.find('a', 2); "
    "s.erase(0, 1); } return t; }",
    "long f(std::string s) { long t = 0; while (!s.empty()) { t += s.at(0); "
    "s.erase(0, 1); } return t; }",
    "long f(std::string s) { long t = 0; while (!s.empty()) { t += s[s.size() - 1]; "
    "s.erase(0, 1); } return t; }",
    "std::string f(std::string s) { while (!s.empty()) { if (s[0] == 'q') return s; "
    "s.erase(0, 1); } return s; }",
    "long f(std::string s) { long t = 0; while (!s.empty()) { s.erase(0, 1); "
    "s += 'a'; if (++t > 9) break; } return t; }",
    # something else can reach it while the loop runs
    "long f(std::string s) { std::string& a = s; long t = 0; while (!s.empty()) "
    "{ t += a.size(); s.erase(0, 1); } return t; }",
    "long f(std::string s) { auto g = [&] { return s.size(); }; long t = 0; "
    "while (!s.empty()) { t += g(); s.erase(0, 1); } return t; }",
    "long f(std::string s) { long t = 0; try { while (!s.empty()) { t += s[0]; "
    "s.erase(0, 1); } } catch (...) { t = (long)s.size(); } return t; }",
    "void g(std::string*); long f(std::string s, int k) { long t = 0; for (int i = 0; i < k; "
    "++i) { while (!s.empty()) { t += s[0]; s.erase(0, 1); } g(&s); } return t; }",
    # static, or declared again in the loop
    "long f() { static std::string s = \"abc\"; long t = 0; while (!s.empty()) "
    "{ t += s[0]; s.erase(0, 1); } return t; }",
])
def test_other_loops_stay(code: str) -> None:
    assert rewritten_code(HEAD + code, RULES) == ""


# -- differential ---------------------------------------------------------------------------


_STRINGS = ('""', '"a"', '"hello, world"', '"xqxxq0zq"',
            'std::string(150, \'k\') + "tail"')
_VECTORS = ("{}", "{5}", "{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5}", "(90, 7)", "{0, 0, 2}")


def _variants(seed: int, count: int) -> list[Variant]:
    rnd = random.Random(seed)
    out: list[Variant] = []
    for k in range(count):
        name = f"fc{k}"
        string = rnd.random() < 0.6
        ctype = "std::string" if string else rnd.choice(("std::vector<int>",
                                                         "std::vector<long>"))
        consume = rnd.choice(("s.erase(0, 1);", "s = s.substr(1);", "s.erase(s.begin());",
                              "s.erase(s.cbegin());")) if string else \
            rnd.choice(("s.erase(s.begin());", "s.erase(s.cbegin());"))
        cond = rnd.choice(("!s.empty()", "s.size() > 0", "0 != s.size()",
                           "!s.empty() && t < 100000", "t >= 0 && s.size() != 0"))
        if string:
            cond = cond.replace("s.size() > 0", rnd.choice(("s.size() > 0", "s.length() > 0")))
        reads = rnd.sample(["t += s[0];", "t = t * 3 + s.front();",
                            "t += (long)s.size();", "if (s.size() > 1) t += s[1] * 2;",
                            "t ^= s.back();", "if (s.empty()) t += 1000;",
                            "s[0] = s[0] + 1; t += s[0];"], rnd.randint(1, 3))
        extra = rnd.choice(("", "", "if (s[0] == 'q' || s[0] == 9) break;",
                            "if (s.size() % 3 == 0) continue;", "if (t > 700) return t;",
                            "if (s[0] == 5 && s.size() < 40) s.push_back(-50);"))
        # Before the consume the container is not empty; after it, reads are guarded (and a
        # ``continue`` goes there, or the loop would not end).
        before = reads[:1] + ([extra] if extra and "continue" not in extra and
                              rnd.random() < 0.5 else [])
        after = [r for r in [*reads[1:], extra] if r and r not in before]
        guarded = f"if (!s.empty()) {{ {' '.join(after)} }}" if after else ""
        body = " ".join([*before, consume, guarded])
        by_value = rnd.random() < 0.5
        params = f"{ctype} s" if by_value else f"const {ctype}& in"
        copy = "" if by_value else f"{ctype} s = in; "
        observe = rnd.choice(("", "t = t * 7 + (long)s.size(); for (auto c : s) t += c;"))
        outer = rnd.random() < 0.2
        loop = f"while ({cond}) {{ {body} }}"
        if outer:
            loop = (f"for (int r = 0; r < 2; ++r) {{ {loop} t += (long)s.size(); "
                    "s.push_back(3); s.push_back(8); }")
        code = (f"long {name}({params}) {{\n    {copy}long t = 0;\n    {loop}\n"
                f"    {observe}\n    return t;\n}}\n")
        inputs = _STRINGS if string else _VECTORS
        calls = " ".join(
            f"std::printf(\"%ld\\n\", {name}({ctype}({v})));" if string
            else f"std::printf(\"%ld\\n\", {name}({ctype}{v}));" for v in inputs)
        out.append(Variant(name, code, calls))
    return out


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_rewritten_loops_compute_the_same(tmp_path: Path) -> None:
    variants = _variants(11, 60)
    results = compare(variants, RULES, tmp_path)
    assert all("vector-front-op" in r.rules for r in results.values()), \
        [n for n, r in results.items() if "vector-front-op" not in r.rules]


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
@pytest.mark.parametrize("breakage", ["no-restore", "size"])
def test_a_wrong_offset_rewrite_changes_results(tmp_path: Path, breakage: str) -> None:
    variants = _variants(11, 60)
    unit, new_unit, _ = rewrite_all(variants, RULES)
    if breakage == "no-restore":
        broken = re.sub(r"s\.erase\(0, s_head\);|s\.erase\(s\.begin\(\), s\.begin\(\) \+ "
                        r"static_cast<std::ptrdiff_t>\(s_head\)\);", "", new_unit)
    else:
        broken = new_unit.replace("(s.size() - s_head)", "s.size()")
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
        outputs.append((run.returncode, run.stdout))  # a crash fails it too
    assert outputs[0][0] == 0 and outputs[0] != outputs[1]


def test_two_loops_consuming_one_string_get_two_offsets() -> None:
    code = ("int f(std::string a) { int n = 0; "
            "while (!a.empty()) { if (a[0] == 'x') ++n; a.erase(0, 1); } a += \"xy\"; "
            "while (!a.empty()) { if (a[0] == 'y') ++n; a.erase(0, 1); } return n; }")
    out = rewritten_code(HEAD + code, RULES)
    # One phase rewrites both loops: each declares its own offset, so the function compiles.
    assert out.count("std::size_t a_head = 0;") == 1 and "std::size_t a_head2 = 0;" in out, out
