# ruff: noqa: E501  (C++ fixtures keep one function a line)
"""Loop analysis: counted headers, independence, reductions, invariant calls, appends."""

from __future__ import annotations

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.code.loops import LoopFacts, all_loops, function_loops

UNIT = r"""
#include <vector>
#include <cstring>
#include <cmath>
#include <iostream>
#include <algorithm>
using namespace std;
int G[100];
void scale(vector<double>& x, const vector<double>& y, int n) {
    for (int i = 0; i < n; ++i) x[i] = y[i] * 2 + sqrt(y[i]);
}
double total(const double* x, int n) { double s = 0; for (int i = 0; i < n; i++) { s += x[i]; } return s; }
void prefix(double* x, int n) { for (int i = 1; i < n; i++) x[i] = x[i-1] + 1; }
int biggest(const int* x, int n) { int m = 0; for (int i = 0; i < n; i++) m = max(m, x[i]); return m; }
void cols(vector<vector<double>>& a, int n, int m) {
    int i, j;
    for (i = 0; i < n; i++) for (j = 0; j < m; j++) a[j][i] = a[j][i] * 2;
}
int count_a(const char* s) { int k = 0; for (size_t i = 0; i < strlen(s); ++i) if (s[i] == 'a') k++; return k; }
vector<int> squares(int n) { vector<int> v; for (int i = 0; i < n; ++i) { v.push_back(i * i); } return v; }
void until_negative(double* x, int n) { for (int i = 0; i < n; i++) { if (x[i] < 0) break; x[i] = 1; } }
void temp(double* x, int n) { double t; for (int i = 0; i < n; i++) { t = x[i]; x[i] = t * t; } }
void matmul(double* c, const double* a, const double* b, int n) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int k = 0; k < n; k++) s += a[i*n+k] * b[k*n+j];
            c[i*n+j] = s;
        }
}
void rows(vector<vector<double>>& a, int n) {
    for (int i = 0; i < n; i++) { auto& row = a[i]; for (int j = 0; j < n; j++) row[j] = 0; }
}
void diag(double* a, int n) { for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) a[j + i] = 1; }
void global(int n) { for (int i = 0; i < n; i++) G[i] = i; }
void printer(const vector<int>& v) { for (size_t i = 0; i < v.size(); i++) cout << v[i] << endl; }
void calls(double* x, int n) { for (int i = 0; i < n; i++) x[i] = rand(); }
int last(int* x, int n) { int i; for (i = 0; i < n; i++) x[i] = 0; return i; }
void shared_scalar(double* x, int n) { double t = 0; for (int i = 0; i < n; i++) { x[i] = t; t = x[i] + 1; } }
void bound_changes(double* x, int n) { for (int i = 0; i < n; i++) { x[i] = 0; n--; } }
void down(double* x, int n) { for (int i = n - 1; i >= 0; --i) x[i] = x[i] * 3; }
void whiles(int n) { int i = 0; while (i < n) i++; }
void bools(vector<bool>& b, int n) { for (int i = 0; i < n; i++) b[i] = true; }
void grow(vector<int>& v, const vector<int>& w) { for (size_t i = 0; i < w.size(); ++i) v.push_back(w[i]); }
void sz(vector<int>& v) { for (size_t i = 0; i < v.size(); ++i) v[i] = 0; }
void strbuf(char* s) { for (size_t i = 0; i < strlen(s); ++i) s[i] = 'x'; }
void strzero(char* s) { for (size_t i = 0; i < strlen(s); ++i) if (s[i] == ' ') s[i] = 0; }
double floatsum(const vector<float>& v) { double s = 1; for (size_t i = 0; i < v.size(); ++i) s *= v[i]; return s; }
void mixed(double* x, int n) { double s = 0; for (int i = 0; i < n; i++) { s += x[i]; x[i] = s; } }
void str_acc(const vector<string>& v, string& out) { for (size_t i = 0; i < v.size(); ++i) out += v[i]; }
void deref(double* p, int n) { for (int i = 0; i < n; i++) *p += i; }
void stride_m(double* c, int n, int m) { for (int i = 0; i < n; i++) for (int j = 0; j < m; j++) c[i*n+j] = 0; }
void row_le(double* c, int n) { for (int i = 0; i < n; i++) for (int j = 0; j <= n; j++) c[n*i + j] = 0; }
void row_after(double* c, int n) { for (int i = 0; i < n; i++) { int j; for (j = 0; j < n; j++) c[i*n+j] = 0; c[i*n+j] = 1; } }
void row_outside(double* c, int n) { for (int i = 0; i < n; i++) { for (int j = 0; j < n; j++) c[j + i*n] = 0; c[i*n] = 1; } }
void row_first(double* c, const double* a, int n) { for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) c[j + i * n] = a[i * n + j] * 2; }
"""


def loops_of(name: str) -> list[LoopFacts]:
    site = function_by_name(UNIT, "cpp", name)
    return list(all_loops(function_loops(site)))


def outer(name: str) -> LoopFacts:
    return loops_of(name)[0]


@pytest.mark.parametrize("name", ["scale", "total", "biggest", "cols", "count_a", "temp", "global",
                                  "down", "sz", "floatsum", "matmul", "row_first"])
def test_independent_loops(name: str) -> None:
    lp = outer(name)
    assert lp.counted
    assert lp.independent, lp.reason


@pytest.mark.parametrize(("name", "words"), [
    ("prefix", "different indices"),
    ("squares", "push_back"),
    ("until_negative", "break"),
    ("stride_m", "same place"),
    ("row_le", "same place"),
    ("row_after", "same place"),
    ("row_outside", "different indices"),
    ("rows", "local reference"),
    ("diag", "same place"),
    ("printer", "input/output"),
    ("calls", "rand"),
    ("last", "used after"),
    ("shared_scalar", "shared variable 't'"),
    ("bound_changes", "'n'"),
    ("bools", "distinct elements"),
    ("grow", "push_back"),
    ("strbuf", "'s'"),
    ("mixed", "shared variable 's'"),
    ("str_acc", "out"),
    ("deref", "pointer"),
])
def test_dependent_loops_say_why(name: str, words: str) -> None:
    lp = outer(name)
    assert not lp.independent
    assert words in lp.reason


def test_while_loop_is_not_counted() -> None:
    lp = outer("whiles")
    assert lp.kind == "while" and not lp.counted and not lp.independent


def test_reductions_and_private_vars() -> None:
    assert outer("total").reductions == (("+", "s"),)
    assert outer("biggest").reductions == (("max", "m"),)
    assert outer("floatsum").reductions == (("*", "s"),)
    assert outer("count_a").reductions == (("+", "k"),)
    assert outer("cols").private_vars == ("j",)
    assert outer("temp").private_vars == ("t",)


def test_header_and_bounds() -> None:
    lp = outer("down")
    assert (lp.induction, lp.lower, lp.upper, lp.cond_op, lp.step) == ("i", "n - 1", "0", ">=", -1)
    lp = outer("scale")
    assert (lp.induction, lp.lower, lp.upper, lp.cond_op, lp.step) == ("i", "0", "n", "<", 1)
    assert lp.induction_declared
    assert not outer("cols").induction_declared


def test_nesting_and_lines() -> None:
    loops = loops_of("matmul")
    assert [lp.induction for lp in loops] == ["i", "j", "k"]
    assert [lp.depth for lp in loops] == [0, 1, 2]
    # the middle loop writes c[i*n+j]: independent in j; the inner one is a reduction in k
    assert loops[1].independent and loops[2].independent
    assert loops[2].reductions == (("+", "s"),)
    assert loops[1].locals == ("k", "s")
    site = function_by_name(UNIT, "cpp", "matmul")
    assert loops[0].line == site.first_line + 1
    assert site.text.encode()[loops[0].start_byte:loops[0].end_byte].startswith(b"for (int i")


def test_invariant_calls() -> None:
    assert [c.text for c in outer("count_a").invariant_calls] == ["strlen(s)"]
    assert [c.text for c in outer("sz").invariant_calls] == ["v.size()"]
    assert [c.text for c in outer("printer").invariant_calls] == ["v.size()"]
    # stores of a non-NUL character keep the string's length; a NUL store does not
    assert [c.text for c in outer("strbuf").invariant_calls] == ["strlen(s)"]
    assert outer("strzero").invariant_calls == ()
    assert outer("grow").invariant_calls == ()  # v and w have the same type: may be one object


def test_appends() -> None:
    assert outer("squares").appends == ("v",)
    assert outer("grow").appends == ("v",)
    assert outer("scale").appends == ()


def test_c_language_subscripts() -> None:
    from perfpilot.code.locate import function_by_name as fbn
    src = "void f(double *a, const double *b, int n) {\n  int i;\n  for (i = 0; i < n; i++)\n" \
          "    a[i] = b[i] + 1.0;\n}\nvoid g(double *a, int n) {\n  int i;\n" \
          "  for (i = 1; i < n; i++) a[i] = a[i - 1];\n}\n"
    f = next(all_loops(function_loops(fbn(src, "c", "f"))))
    g = next(all_loops(function_loops(fbn(src, "c", "g"))))
    assert f.independent, f.reason
    assert not g.independent


def test_shift_on_a_stream_is_not_independent() -> None:
    src = "#include <ostream>\nvoid emit(std::ostream& os, int n, unsigned* m) {\n" \
          "  for (int i = 0; i < n; ++i) os << i << '\\n';\n" \
          "  for (int i = 0; i < n; ++i) m[i] = m[i] << 2;\n}\n"
    loops = list(all_loops(function_loops(function_by_name(src, "cpp", "emit"))))
    assert not loops[0].independent and "os" in loops[0].reason
    assert loops[1].independent, loops[1].reason


def test_members_of_own_elements() -> None:
    src = "struct P { double x, v; };\n" \
          "void step(P* p, int n, double dt) { for (int i = 0; i < n; ++i) p[i].x += p[i].v * dt; }\n" \
          "void bad(P* p, int n) { for (int i = 1; i < n; ++i) p[i].x = p[i - 1].x; }\n" \
          "void ptrs(P** p, int n) { for (int i = 0; i < n; ++i) p[i]->x = 0; }\n"
    step = outer_of(src, "step")
    assert step.independent, step.reason
    assert not outer_of(src, "bad").independent
    assert not outer_of(src, "ptrs").independent


def outer_of(src: str, name: str) -> LoopFacts:
    return next(all_loops(function_loops(function_by_name(src, "cpp", name))))


def test_global_container_size_is_not_hoisted_past_unknown_calls() -> None:
    src = "#include <vector>\nstd::vector<int> g;\nvoid work(int);\n" \
          "void run() { for (std::size_t i = 0; i < g.size(); ++i) work(i); }\n" \
          "int sum() { int s = 0; for (std::size_t i = 0; i < g.size(); ++i) s += g[i]; return s; }\n"
    assert outer_of(src, "run").invariant_calls == ()
    assert [c.text for c in outer_of(src, "sum").invariant_calls] == ["g.size()"]


def test_global_loop_variables_are_not_privatized() -> None:
    src = "int i, t;\ndouble x[100];\n" \
          "void a(int n) { for (i = 0; i < n; ++i) x[i] = 0; }\n" \
          "void b(int n) { for (int k = 0; k < n; ++k) { t = k; x[k] = t; } }\n"
    assert "used after" in outer_of(src, "a").reason
    assert "used after" in outer_of(src, "b").reason


def test_the_function_is_walked_for_declarations_once_however_many_loops(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Walking the whole function again for every loop made a 5,000-line function with 486
    # loops take minutes to rewrite.
    import perfpilot.code.loops as loops_module

    body = "\n".join(f"  for (int i{k} = 0; i{k} < n; ++i{k}) x[i{k}] += {k};" for k in range(60))
    site = function_by_name(f"void many(double* x, int n) {{\n{body}\n}}\n", "cpp", "many")
    calls: list[int] = []
    real = loops_module.declared_types
    monkeypatch.setattr(loops_module, "declared_types",
                        lambda node: calls.append(1) or real(node))
    loops = function_loops(site)
    assert len(loops) == 60 and all(lp.independent for lp in loops)
    assert len(calls) <= 2


def test_a_local_constructed_from_variables_is_a_variable_not_a_function() -> None:
    from perfpilot.code.declarations import declared_types
    from perfpilot.code.parse import parse
    from perfpilot.code.syntax import walk

    unit = ("void f(const std::vector<int>& jobs) { std::vector<int> q(jobs); "
            "std::vector<int> g(Widget); }")
    fn = next(n for n in walk(parse(unit, "cpp").root_node)
              if n.type == "function_definition")
    types = declared_types(fn)
    q = types.get("q")
    assert q is not None and q.base == "std::vector<int>"
    assert "g" not in types  # Widget is no variable: a function declaration, as C++ reads it


def test_the_fact_model_answers_loop_analysis_for_any_loop_of_a_nest() -> None:
    # One fact model: the detections' loops and the dependence analysis come from one object.
    from perfpilot.code.facts import FunctionFacts
    from perfpilot.code.parse import parse

    site = function_by_name(UNIT, "cpp", "cols")
    root = parse(site.unit_text, "cpp").root_node
    fn = root.descendant_for_byte_range(site.start_byte, site.start_byte)
    while fn is not None and fn.type != "function_definition":
        fn = fn.parent
    assert fn is not None
    facts = FunctionFacts(site, fn, root)
    outer, inner = facts.loops
    assert facts.loop_at(inner.node.start_byte) == inner
    assert facts.loop_at(inner.node.start_byte + 1) is None
    nest, nested = facts.loop_facts(outer), facts.loop_facts(inner)
    assert (nest.depth, nested.depth) == (0, 1)
    assert nest.children == (nested,) and nested.induction == "j"
    assert nest.independent and nest.line == outer.line
    assert facts.loop_facts(outer) is nest  # analysed once per nest
    assert facts.loop_types["a"] is not None and "i" in facts.own_names


def test_the_loops_of_one_function_share_its_alias_and_purity_facts(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Where local pointers may point, and whether a helper is pure, are facts of the whole
    # function (or file): worked out per loop, a function of n loops cost O(n²) (a generated
    # 700-loop function took minutes).
    from perfpilot.code import loops, purity
    from perfpilot.code.parse import parse

    body = "".join(f"    for (int i{k} = 0; i{k} < n; ++i{k}) a[i{k}] = twice(b[i{k}]);\n"
                   f"    for (int j{k} = 0; j{k} < n; ++j{k}) t += a[j{k}];\n"
                   for k in range(12))
    unit = ("static double twice(double x) { return 2 * x; }\n"
            "double big(double *a, const double *b, int n) {\n    double t = 0;\n"
            + body + "    return t;\n}\n")
    walked: list[str] = []
    real_storage, real_pure = loops.storage, purity.pure_helper
    monkeypatch.setattr(loops, "storage", lambda fn, types: walked.append("storage")
                        or real_storage(fn, types))
    monkeypatch.setattr(loops, "pure_helper", lambda name, at, unit=None: walked.append(name)
                        or real_pure(name, at, unit))
    found = loops.find_loops(parse(unit, "c").root_node.named_children[1])
    assert len(found) == 24 and all(lf.independent for lf in found[::2])
    assert walked.count("storage") == 1 and walked.count("twice") == 1
