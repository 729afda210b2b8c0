"""A model's whole answer becomes a candidate: helpers beside the function, rewritten callees,
a whole unit, several fenced blocks; what cannot be used is refused with what the answer had."""

from __future__ import annotations

import pytest

from perfpilot.code.callees import caller_part
from perfpilot.code.locate import function_by_name
from perfpilot.code.site import FunctionSite
from perfpilot.code.splice import splice
from perfpilot.prompting.answer_items import rename_calls, split_items, unit_names
from perfpilot.prompting.candidates import CandidateRejected, candidate_from_text, check_candidate
from perfpilot.runner.capabilities import check_candidate as policy
from perfpilot.strategy.values import Candidate, Rejected

UNIT = """#include <vector>
#include <cmath>

struct Point { double x, y; };

double norm2(Point p) { return p.x * p.x + p.y * p.y; }

double total(std::vector<Point> pts, int scale) {
    double s = 0;
    for (std::size_t i = 0; i < pts.size(); ++i) s += std::sqrt(norm2(pts[i])) * scale;
    return s;
}

int main() { return (int)total({}, 1); }
"""

FAST = """double total(const std::vector<Point>& pts, int scale) {
    double s = 0;
    for (const Point& p : pts) s += std::sqrt(norm2(p));
    return s * scale;
}
"""

HELPERS = """Here is a faster version with a small accumulator and a helper:

```cpp
#include <numeric>
#include <vector>

struct Acc { double sum = 0; };

static inline double length(const Point& p) { return std::sqrt(p.x * p.x + p.y * p.y); }

double total(const std::vector<Point>& pts, int scale) {
    Acc a;
    for (const Point& p : pts) a.sum += length(p);
    return a.sum * scale;
}
```
"""


@pytest.fixture
def site() -> FunctionSite:
    return function_by_name(UNIT, "cpp", "total", uri="file:///t.cpp")


def test_helper_struct_and_function_are_kept_above_the_function(site: FunctionSite) -> None:
    cand = candidate_from_text(site, HELPERS, (), "replay", 0)
    assert isinstance(cand, Candidate), cand
    assert cand.code.index("struct Acc") < cand.code.index("double length") \
        < cand.code.index("double total")
    assert cand.includes == ("<numeric>",)  # <vector> is the file's already
    assert "adds struct `Acc`, function `length` above `total`" in cand.notes
    # The capability policy judges the helpers with the function, and allows them.
    assert policy(site, cand.code, cand.includes) == ()
    after = splice(site, cand.code, cand.includes)
    assert after.count("#include <vector>") == 1 and "#include <numeric>\n" in after
    assert after.index("struct Acc") < after.index("double total(const")
    # What the function is, for Revert and staleness: the definition after the helpers.
    before, own = caller_part(cand.code, site)
    assert "struct Acc" in before and own.startswith("double total(")


def test_a_whole_unit_answer_keeps_only_what_is_new_and_used(site: FunctionSite) -> None:
    whole = (UNIT.replace("double norm2(Point p) { return p.x * p.x + p.y * p.y; }",
                          "double norm2(Point p) { return p.x * p.x + (p.y * p.y); }")
             .replace("int main() { return (int)total({}, 1); }",
                      "int main() { return 3; }\nstatic int unused(int x) { return x; }")
             .replace("* scale;\n    return s;", ";\n    return s * scale;"))
    cand = candidate_from_text(site, f"```cpp\n{whole}```", (), "replay", 0)
    assert isinstance(cand, Candidate), cand
    notes = "\n".join(cand.notes)
    assert "dropped struct `Point`: the file already has it" in notes
    assert "dropped `main`" in notes and "dropped function `unused`" in notes
    # The rewritten callee is a renamed copy the function calls; the file's stays.
    assert "static double norm2_fast(Point p)" in cand.code
    assert "norm2_fast(pts[i])" in cand.code and "norm2(" not in cand.code
    assert "struct Point" not in cand.code and "main" not in cand.code
    assert policy(site, cand.code, cand.includes) == ()


def test_the_quoted_original_and_a_usage_example_are_left_out(site: FunctionSite) -> None:
    text = (f"The original:\n```cpp\n{site.text}```\nFaster:\n```cpp\n{FAST}```\nUse it:\n"
            "```cpp\nint main() { return (int)total({}, 2); }\n```\n")
    cand = candidate_from_text(site, text, (), "remote", 0)
    assert isinstance(cand, Candidate), cand
    assert cand.code == FAST
    assert any("used fenced block 2 of 3" in n for n in cand.notes)


def test_a_helper_in_its_own_block_goes_with_the_function(site: FunctionSite) -> None:
    text = ("First a constant:\n```cpp\nconstexpr double kHalf = 0.5;\n```\nThen:\n```cpp\n"
            + FAST.replace("s * scale", "s * scale * kHalf * 2") + "```")
    cand = candidate_from_text(site, text, (), "remote", 0)
    assert isinstance(cand, Candidate), cand
    assert cand.code.startswith("constexpr double kHalf = 0.5;")
    assert any("took the helpers of fenced block 1" in n for n in cand.notes)


@pytest.mark.parametrize(("text", "reason"), [
    ("```cpp\nint a() { return 1; }\n```\n```cpp\nint main() {}\n```",
     "extraction failed: two fenced blocks, neither defines `total`; they define `a`, `main`"),
    ("Use a hash map instead.",
     "extraction failed: no fenced block and no definition of `total` (prose only)"),
    ("```python\nprint(1)\n```", "extraction failed: one fenced block (`python`), none of them "
                                "C or C++"),
    ("```cpp\nint helper(int x) { return x; }\n```",
     "extraction failed: one fenced block, which does not define `total`; it defines "
     "`helper`"),
])
def test_an_extraction_failure_names_what_the_answer_had(site: FunctionSite, text: str,
                                                          reason: str) -> None:
    result = candidate_from_text(site, text, (), "replay", 0)
    assert isinstance(result, Rejected)
    assert result.reason == reason
    assert result.answer == text  # kept for the report


def test_helpers_that_redefine_the_files_names_are_refused(site: FunctionSite) -> None:
    with pytest.raises(CandidateRejected, match=r"struct `Point` \(line 1\) redefines `Point`"):
        check_candidate(site, "struct Point { float x, y; };\n" + FAST)
    with pytest.raises(CandidateRejected, match="defines a member of a class"):
        check_candidate(site, "double Point::len() const { return 0; }\n" + FAST)
    with pytest.raises(CandidateRejected, match="uses `norm2` other than by calling it"):
        check_candidate(site, "double norm2(Point p) { return p.x + p.y; }\n"
                        + FAST.replace("double s = 0;", "auto f = &norm2; double s = f({});"))


def test_a_helper_declared_before_its_definition_passes_the_policy(site: FunctionSite) -> None:
    code = ("static double half(double x);\n" + FAST.replace("return s * scale;",
                                                          "return half(2 * s * scale);")
            + "static double half(double x) { return x / 2; }\n")
    checked = check_candidate(site, code)
    assert checked.code.index("double half(double x) {") < checked.code.index("double total")
    assert policy(site, checked.code) == ()


def test_a_mutable_global_helper_is_left_to_the_policy_which_refuses_it(
        site: FunctionSite) -> None:
    checked = check_candidate(site, "static double last = 0;\n"
                              + FAST.replace("return s", "last = s;\n    return s"))
    assert checked.code.startswith("static double last = 0;")
    found = policy(site, checked.code)
    assert [v.construct for v in found] == ["static double last = 0;"]
    assert "keeps state between calls" in found[0].reason


def test_a_method_defined_in_its_class_takes_no_helpers() -> None:
    unit = ("#include <vector>\nstruct Bag {\n    std::vector<int> v;\n    long sum() const {\n"
            "        long s = 0;\n        for (int x : v) s += x;\n        return s;\n    }\n};\n")
    site = function_by_name(unit, "cpp", "Bag::sum")
    code = ("static long add(long a, int b) { return a + b; }\nlong sum() const {\n"
            "    long s = 0;\n    for (int x : v) s = add(s, x);\n    return s;\n}\n")
    with pytest.raises(CandidateRejected, match="defined inside its class"):
        check_candidate(site, code)
    # The whole class repeated: the method alone is taken.
    whole = unit.replace("s += x;", "s = s + x;")
    checked = check_candidate(site, whole)
    assert checked.code.startswith("long sum() const")
    assert any("took `sum` alone" in n for n in checked.notes)


def test_a_function_in_a_namespace_keeps_its_helpers_inside_it() -> None:
    unit = "namespace geo {\nint twice(int x) { return x + x; }\n}\n"
    site = function_by_name(unit, "cpp", "geo::twice")
    text = ("```cpp\nnamespace geo {\nconstexpr int kTwo = 2;\nint twice(int x) { return x * "
            "kTwo; }\n}\n```")
    cand = candidate_from_text(site, text, (), "remote", 0)
    assert isinstance(cand, Candidate), cand
    assert cand.code == "constexpr int kTwo = 2;\n\nint twice(int x) { return x * kTwo; }\n"


def test_items_names_and_renames() -> None:
    items, _root = split_items("// doc\nstruct A { int x; };\nenum E { P, Q };\nusing V = int;\n"
                               "static constexpr int K = 3;\nint g(int);\nint f() { return "
                               "g(K); }\n", "cpp")
    assert [(i.kind, i.names) for i in items] == [
        ("type", ("A",)), ("type", ("E", "P", "Q")), ("alias", ("V",)), ("variable", ("K",)),
        ("prototype", ("g",)), ("function", ("f",))]
    assert items[0].text.startswith("// doc\nstruct A") and items[0].text.endswith(";")
    assert set(unit_names(UNIT, "cpp")) >= {"Point", "norm2", "total", "main"}
    assert rename_calls("int f() { return g(1) + g(2); }", "cpp", "g", "g2") \
        == "int f() { return g2(1) + g2(2); }"
    assert rename_calls("int f() { auto p = &g; return p(1); }", "cpp", "g", "g2") is None


def test_helpers_go_above_the_comments_that_document_the_function() -> None:
    unit = ("#include <vector>\n\nint g;  // a global\n// Doc, line 1\n/* doc, line 2 */\n"
            "int f(int x)\n{\n    return x;\n}\n")
    site = function_by_name(unit, "cpp", "f")
    code = "struct H { int a; };\n\nint f(int x)\n{\n    return H{x}.a;\n}\n"
    after = splice(site, code, ("<map>",))
    assert after == ("#include <vector>\n#include <map>\n\nint g;  // a global\n"
                     "struct H { int a; };\n\n// Doc, line 1\n/* doc, line 2 */\nint f(int x)\n"
                     "{\n    return H{x}.a;\n}\n")
    # The function alone replaces the function alone.
    plain = splice(site, "int f(int x)\n{\n    return x + 0;\n}\n")
    assert plain == unit.replace("return x;", "return x + 0;")
