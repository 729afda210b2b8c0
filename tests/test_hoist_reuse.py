"""A size hoisted before one loop is read by a later loop of the same block, when nothing between
the two can change it; otherwise each loop gets its own local."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from compile_support import assert_no_difference
from perfpilot.code.locate import function_by_name
from perfpilot.rules.rewriting import rewrite

HEADERS = "#include <algorithm>\n#include <map>\n#include <string>\n#include <vector>\n"

TWO_LOOPS = """
int spread(std::vector<int>& arr) {
    int sum = 0;
    for (int i = 0; i < (int)arr.size(); i++) {
        sum += arr[i];
    }
    int best = arr.empty() ? 0 : arr[0], k = 0;
    k += 2;
    for (int i = 1; i < (int)arr.size(); i++) {
        best = std::max(best + arr[i], arr[i]);
    }
    return best - sum + k;
}
"""


def _hoisted(code: str, name: str) -> str:
    site = function_by_name(HEADERS + code, "cpp", name)
    return rewrite(site, {"hoist-invariant-call"}).code


def test_a_later_loop_reads_the_first_loops_local() -> None:
    out = _hoisted(TWO_LOOPS, "spread")
    assert out.count("const auto arr_size = arr.size();") == 1, out
    assert "arr_size2" not in out, out
    assert out.count("i < (int)arr_size;") == 2, out


@pytest.mark.parametrize("between", [
    "arr.push_back(k);",  # changes the size
    "touch(arr);",  # an unknown call
    "other = arr2;",  # assigns a vector that may be the same one
    "std::vector<int>& r = arr; k += (int)r.size();",  # an alias, then anything
    "{ auto grow = [&] { arr.clear(); }; grow(); }",  # a lambda
])
def test_anything_between_that_could_change_the_size_keeps_two_locals(between: str) -> None:
    code = TWO_LOOPS.replace("int spread(std::vector<int>& arr)",
                             "void touch(std::vector<int>&);\n"
                             "int spread(std::vector<int>& arr, std::vector<int>& other, "
                             "const std::vector<int>& arr2)").replace("k += 2;", between)
    out = _hoisted(code, "spread")
    assert "i < (int)arr.size()" not in out.split("k = 0;")[0], out  # the first loop hoists
    assert "arr_size2" in out or out.count("arr.size()") >= 2, out


def test_a_call_of_the_files_own_function_under_a_standard_name_keeps_two_locals() -> None:
    code = ("static std::vector<int>* G;\n"
            "int max(int a, int b) { if (G) G->clear(); return a > b ? a : b; }\n"
            + TWO_LOOPS.replace("int sum = 0;", "G = &arr;\n    int sum = 0;")
            .replace("k += 2;", "k = max(k, 1);"))
    out = _hoisted(code, "spread")
    assert "arr_size2" in out, out


def test_a_map_whose_subscript_inserts_is_not_reused() -> None:
    code = """
int keys(std::map<int, int>& m) {
    int s = 0;
    for (int i = 0; i < (int)m.size(); i++) s += i;
    m[7] += 1;
    for (int i = 0; i < (int)m.size(); i++) s -= i;
    return s;
}
"""
    out = _hoisted(code, "keys")
    assert "m_size2" in out or out.count("m.size()") == 2, out


def test_a_loop_in_another_block_gets_its_own_local() -> None:
    code = TWO_LOOPS.replace("k += 2;\n    for (int i = 1; i < (int)arr.size(); i++) {\n"
                             "        best = std::max(best + arr[i], arr[i]);\n    }",
                             "if (k == 0) {\n        for (int i = 1; i < (int)arr.size(); i++) "
                             "{\n            best = std::max(best + arr[i], arr[i]);\n        }"
                             "\n    }")
    out = _hoisted(code, "spread")
    assert "arr_size2" in out, out


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_the_shared_local_gives_the_original_results(tmp_path: Path) -> None:
    program = (HEADERS + "#include <cstdio>\nnamespace orig {" + TWO_LOOPS + "}\nnamespace opt {"
               + _hoisted(TWO_LOOPS, "spread") + "}\n" + """
int main() {
    int bad = 0;
    for (int n = 0; n < 40; ++n) {
        std::vector<int> a(n), b;
        for (int i = 0; i < n; ++i) a[i] = (i * 7919 + n) % 23 - 11;
        b = a;
        if (orig::spread(a) != opt::spread(b)) ++bad;
    }
    std::printf("%d\\n", bad);
    return bad != 0;
}
""")
    assert_no_difference(tmp_path, program)


# The same call inside the loop's body (a nested loop's condition included) reads the local the
# condition's call was hoisted into: the proof that the body never changes the size holds at
# every point of it.
NESTED = """
long pairs_below(const std::vector<long>& xs, long limit) {
    long found = 0;
    for (std::size_t a = 0; a < xs.size(); ++a) {
        if (a + 1 == xs.size()) found += 100;
        for (std::size_t b = a + 1; b < xs.size(); ++b) {
            if (xs[a] + xs[b] < limit && b + 1 < xs.size()) ++found;
        }
    }
    return found;
}
"""


def test_the_same_call_in_the_body_and_a_nested_condition_reads_the_local() -> None:
    out = _hoisted(NESTED, "pairs_below")
    assert out.count("const auto xs_size = xs.size();") == 1, out
    assert "xs.size()" not in out.split("xs_size = xs.size();")[1] and "xs_size2" not in out, out
    assert out.count("xs_size") == 5, out


@pytest.mark.parametrize("body, stays", [
    # another `xs` inside the body: its size is another object's
    ("{ std::vector<long> xs(3); found += (long)xs.size(); }", "(long)xs.size()"),
    # a lambda may run when the loop is over
    ("auto late = [&] { return xs.size(); }; found += (long)late();", "return xs.size();"),
])
def test_a_body_call_the_proof_does_not_cover_stays(body: str, stays: str) -> None:
    out = _hoisted(NESTED.replace("if (a + 1 == xs.size()) found += 100;", body), "pairs_below")
    assert stays in out, out


def test_a_body_that_changes_the_size_keeps_its_own_calls() -> None:
    code = NESTED.replace("const std::vector<long>& xs", "std::vector<long>& xs").replace(
        "found += 100;", "xs.pop_back();")
    out = _hoisted(code, "pairs_below")
    assert "a < xs.size();" in out and "a + 1 == xs.size()" in out, out


def test_strlen_in_the_body_reads_the_hoisted_length() -> None:
    # strlen and putchar write no memory: the loop keeps the string as it is
    code = """
#include <stdio.h>
#include <string.h>
int doubled(const char *s) {
    int n = 0;
    for (size_t i = 0; i < strlen(s); ++i)
        if (i + 1 < strlen(s) && s[i] == s[i + 1]) putchar(s[i]);
    return n;
}
"""
    out = rewrite(function_by_name(code, "c", "doubled"), {"hoist-invariant-call"}).code
    assert out.count("strlen(s)") == 1 and out.count("s_len") == 3, out


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_the_body_reading_the_local_gives_the_original_results(tmp_path: Path) -> None:
    program = (HEADERS + "#include <cstdio>\nnamespace orig {" + NESTED + "}\nnamespace opt {"
               + _hoisted(NESTED, "pairs_below") + "}\n" + """
int main() {
    int bad = 0;
    for (int n = 0; n < 30; ++n) {
        std::vector<long> xs(n);
        for (int i = 0; i < n; ++i) xs[i] = (i * 7919 + n) % 41 - 20;
        if (orig::pairs_below(xs, n % 9 - 4) != opt::pairs_below(xs, n % 9 - 4)) ++bad;
    }
    std::printf("%d\\n", bad);
    return bad != 0;
}
""")
    assert_no_difference(tmp_path, program)
