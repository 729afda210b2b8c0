"""Loops consuming a local string by a prefix of any length per iteration
(``s.erase(0, k)``, ``s = s.substr(k)``: ``rules/containers/front_consume.py``, the vector-front-op
rewrite), as tokenizers and record parsers do: they read the unchanged string through an
offset, with ``find``, ``substr(0, n)`` and copies into a vector of strings followed. The
forms, what must stay, and a g++ differential over generated loops (thrown exceptions and
their messages included) that fails when ``find`` answers an absolute position or a throwing
``substr`` sees the whole string."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from differential_support import (
    DEEP,
    HAVE_GXX,
    Variant,
    build_and_run,
    compare_rewritten,
    rewrite_all,
    rewritten_code,
    sample,
)
from perfpilot.code.locate import function_by_name
from perfpilot.planning.builtin import analyze_site

HEAD = "#include <string>\n#include <vector>\n"
RULES = frozenset({"vector-front-op"})



@pytest.mark.parametrize(("code", "expected"), [
    # a fixed-size record per iteration, no non-empty guard needed
    ("int f(std::string b) { int n = 0; while (b.size() >= 8) { if (b[0] == 'R') ++n; "
     "b.erase(0, 8); } return n; }",
     ["b.size() - b_head >= 8", "b_head += std::min<std::size_t>(8, b.size() - b_head);"]),
    # a tokenizer: find, substr from 0, the rest copied whole
    ("std::vector<std::string> f(std::string s) { std::vector<std::string> out; "
     "while (!s.empty()) { std::size_t p = s.find(' '); if (p == std::string::npos) "
     "{ out.push_back(s); break; } out.push_back(s.substr(0, p)); s = s.substr(p + 1); } "
     "return out; }",
     ["std::size_t p = s_find(' ');", "out.push_back(s.substr(s_head));",
      "out.push_back(s.substr(s_head, p));",
      "if (s_cut > s.size() - s_head) { s.erase(0, s_head); s = s.substr(s_cut); }"]),
    # one element without a guard: erase(0, 1) clamps, substr(1) may throw
    ("long f(std::string s, int n) { long t = 0; while (n-- > 0) { t += s.size(); "
     "s = s.substr(1); } return t; }", ["s = s.substr(s_cut);", "s_head += s_cut;"]),
    ("long f(std::string s) { long t = 0; while (!s.empty() || t < 5) { t += 1; "
     "s.erase(0, 1); } return t; }", ["std::min<std::size_t>(1, s.size() - s_head)"]),
    # the string is observed afterwards: the prefix goes once
    ("std::string f(std::string s, int k) { for (int i = 0; i < k; ++i) { "
     "s.erase(0, s.find(',') + 1); } return s; }", ["s.erase(0, s_head);"]),
    # a count reading the string: its reads are followed too
    ("long f(std::string s) { long t = 0; while (!s.empty()) { t += s[0]; "
     "s.erase(0, s.size() / 2 + 1); } return t; }",
     ["std::min<std::size_t>((s.size() - s_head) / 2 + 1, s.size() - s_head)"]),
    ("long f(std::string s) { long t = 0; while (!s.empty()) { t += s[0]; "
     "s = s.substr(s.find(',') + 1); } return t; }",
     ["const std::size_t s_cut = s_find(',') + 1;"]),
    # a count that is no name of the string, a find of a string
    ("long f(std::string s) { long t = 0; while (!s.empty()) { t += s.find(\"ab\"); "
     "s.erase(0, 2); } return t; }", ["t += s_find(\"ab\");"]),
])
def test_prefix_consumes_become_an_offset(code: str, expected: list[str]) -> None:
    got = rewritten_code(HEAD + code, RULES)
    for e in expected:
        assert e in got, got


def test_the_finding_names_the_prefix() -> None:
    code = HEAD + ("int f(std::string b) {\n    int n = 0;\n    while (b.size() >= 8) {\n"
                   "        n += b[0];\n        b.erase(0, 8);\n    }\n    return n;\n}\n")
    (finding,) = [f for f in analyze_site(function_by_name(code, "cpp", "f")).findings
                  if f.rule == "vector-front-op"]
    assert "removes a prefix of `b`" in finding.explanation and finding.lines[0] == 7


@pytest.mark.parametrize("code", [
    # the count indexes the string by the string
    "long f(std::string s) { long t = 0; while (!s.empty()) { t += s[0]; "
    "s.erase(0, s[s.size() - 1] & 3); } return t; }",
    # not at the front
    "long f(std::string s) { long t = 0; while (s.size() > 2) { t += s[0]; s.erase(1, 2); } "
    "return t; }",
    # a find from a position (an offset added to npos would wrap), a substr not from 0
    "long f(std::string s) { long t = 0; while (!s.empty()) { t += s.find('a', 1); "
    "s.erase(0, 2); } return t; }",
    "long f(std::string s) { long t = 0; while (s.size() > 3) { t += s.substr(1, 2).size(); "
    "s.erase(0, 3); } return t; }",
    # the whole string goes where a copy is not what it gets: a view, a function
    "#include <string_view>\nlong f(std::string s) { std::vector<std::string_view> v; "
    "while (!s.empty()) { v.push_back(s); s.erase(0, 2); } return (long)v.size(); }",
    "long g(const std::string&); long f(std::string s) { long t = 0; while (!s.empty()) "
    "{ t += g(s); s.erase(0, 2); } return t; }",
    "std::string f(std::string s) { while (!s.empty()) { if (s[0] == 'q') return s; "
    "s.erase(0, 2); } return s; }",
    # another change to the string in the loop, or a second consume
    "long f(std::string s) { long t = 0; while (s.size() > 4) { s.erase(0, 2); s += 'a'; "
    "if (++t > 9) break; } return t; }",
    "long f(std::string s) { long t = 0; while (s.size() > 4) { s.erase(0, 2); "
    "s = s.substr(1); ++t; } return t; }",
    # a reference, not a local
    "long f(std::string& s) { long t = 0; while (s.size() > 1) { t += s[0]; s.erase(0, 2); } "
    "return t; }",
    # a handler could see it half consumed
    "long f(std::string s) { long t = 0; try { while (!s.empty()) { t += s[0]; "
    "s = s.substr(2); } } catch (...) { t = (long)s.size(); } return t; }",
    # a vector has no erase(0, k)
    "long f(std::vector<char> s) { long t = 0; while (s.size() > 1) { t += s[0]; "
    "s.erase(s.begin(), s.begin() + 2); } return t; }",
])
def test_other_loops_stay(code: str) -> None:
    assert rewritten_code(HEAD + code, RULES) == ""


# -- differential ---------------------------------------------------------------------------


_INPUTS = ('""', '"a,b,,c"', '"hello world, ab ab q"', "std::string(120, ',')",
           '"abqabq,,xx yy ab"', '"no separators here"')


def _variants(seed: int, count: int) -> list[Variant]:
    rnd = random.Random(seed)
    out: list[Variant] = []
    for k in range(count):
        name = f"pc{k}"
        sep = rnd.choice(("','", "' '", '"ab"', 'std::string("q")'))
        cond = rnd.choice(("!s.empty() && ++iters < 300", "s.size() >= 3 && ++iters < 300",
                           "++iters < 60", "s.length() != 0 && ++iters < 300"))
        count_text = rnd.choice(("p + 1", "p", "2", "(std::size_t)(t & 3)",
                                 "std::string::npos", "p == std::string::npos ? 90 : p + 1",
                                 "-1", "1", f"s.find({sep}) + 1",
                                 "s.size() / 2 + (s.empty() ? 0 : s[0] & 1)"))
        consume = rnd.choice((f"s.erase(0, {count_text});", f"s = s.substr({count_text});"))
        reads = rnd.sample(["t += (long)(p == std::string::npos ? 7 : p);",
                            "out.push_back(s.substr(0, p));", "out.push_back(s);",
                            "out.emplace_back(s.substr());", "if (!s.empty()) t += s[0];",
                            "t += (long)s.size() * 3;",
                            "if (p != std::string::npos && p > 0) t ^= s[p - 1];",
                            f"t += (long)(s.find({sep}) == p);"], rnd.randint(1, 3))
        extra = rnd.choice(("", "", "if (t > 100000) break;", "if (s.size() % 3 == 0) continue;",
                            "if (t > 900) return t;", "if (s.size() == 5) s.push_back('z');"))
        body = " ".join([f"std::size_t p = s.find({sep});", *reads, consume, extra])
        by_value = rnd.random() < 0.5
        params = "std::string s" if by_value else "const std::string& in"
        copy = "" if by_value else "std::string s = in; "
        observe = rnd.choice(("", "t = t * 7 + (long)s.size(); for (char c : s) t += c;"))
        loop = rnd.choice((f"while ({cond}) {{ {body} }}",
                           f"for (int r = 0; r < 50; ++r) {{ {body} }}"))
        code = (f"long {name}({params}) {{\n    {copy}long t = 0; int iters = 0; "
                "std::vector<std::string> out;\n"
                f"    {loop}\n    {observe}\n"
                "    for (const std::string& w : out) t = t * 31 + (long)w.size() + "
                "(w.empty() ? 0 : w[0]);\n    return t + iters;\n}\n")
        calls = " ".join(
            f"try {{ std::printf(\"%ld\\n\", {name}(std::string({v}))); }} "
            "catch (const std::exception& e) { std::printf(\"threw %s\\n\", e.what()); }"
            for v in _INPUTS)
        out.append(Variant(name, code, calls))
    return out


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
def test_rewritten_loops_compute_the_same(tmp_path: Path) -> None:
    compare_rewritten(_variants(23, 60), RULES, tmp_path)


def _outputs(unit: str, variants: list[Variant], tmp_path: Path, tag: str) -> tuple[int, list[str]]:
    drivers = "\n".join(f"    {{ std::printf(\"== {v.name}\\n\"); {v.driver} }}"
                        for v in variants)
    src = tmp_path / f"{tag}.cpp"
    src.write_text(unit + "\nint main() {\n" + drivers + "\n    return 0;\n}\n")
    subprocess.run(["g++", "-std=c++17", "-O1", "-o", str(tmp_path / tag), str(src)],
                   check=True, capture_output=True, timeout=300)
    run = subprocess.run([str(tmp_path / tag)], capture_output=True, text=True, timeout=120)
    return run.returncode, run.stdout.splitlines()  # a crash fails it too


@pytest.mark.skipif(not HAVE_GXX, reason="needs g++")
@pytest.mark.parametrize(("wrong", "right"), [
    ("at", "at - s_head"),  # find answers a position in the whole string
    ("", "s.erase(0, s_head); "),  # a throwing substr reports the whole string's size
])
def test_a_wrong_offset_rewrite_changes_results(tmp_path: Path, wrong: str,
                                                right: str) -> None:
    def breaks(unit: str) -> str:
        return unit.replace(f"? at : {right};" if wrong else right,
                            f"? at : {wrong};" if wrong else wrong)

    variants = _variants(23, 60)
    _, new_unit, _ = rewrite_all(variants, RULES)
    assert breaks(new_unit) != new_unit
    # The sample the differential test runs first (its original is built already: the
    # original must run cleanly), the whole set only when the sample shows no change.
    for chosen in ([variants] if DEEP else [sample(variants), variants]):
        unit, new_unit, _ = rewrite_all(chosen, RULES)
        broken = breaks(new_unit)
        if broken == new_unit:
            continue
        original = build_and_run(unit, chosen, tmp_path, "orig")
        if _outputs(broken, chosen, tmp_path, "broken") != (0, original):
            return
    pytest.fail("the wrong offset printed what the original printed")
