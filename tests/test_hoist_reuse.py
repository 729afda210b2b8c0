"""A size hoisted before one loop is read by a later loop of the same block, when nothing between
the two can change it; otherwise each loop gets its own local."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

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
    source = tmp_path / "reuse.cpp"
    source.write_text(program)
    subprocess.run(["g++", "-std=c++17", "-Wall", "-Wextra", "-Wshadow", "-Werror", "-o",
                    str(tmp_path / "reuse"), str(source)], check=True)
    done = subprocess.run([str(tmp_path / "reuse")], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "0", done.stdout
