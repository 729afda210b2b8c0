"""The parallel family's findings carry their proofs, and the rewrites act on them: a finding a
rewrite leaves ends in a note naming it and why; OpenMP hands the loops inside a loop it leaves
serial on to detection again."""

from __future__ import annotations

from perfpilot.code.locate import function_by_name
from perfpilot.optimizing.builtin import rewrite
from perfpilot.planning.builtin import analyze
from perfpilot.rules.parallel.accumulator_chain import SerialSum
from perfpilot.rules.parallel.loop_interchange import Interchange
from perfpilot.rules.parallel.openmp import ParallelLoop, inner_findings, openmp
from perfpilot.rules.parallel.simd_loop import SimdPragma
from perfpilot.rules.registry import last_bit_phases
from perfpilot.rules.rewriting import rule_input

COLSUM = """#include <vector>
double colsum(const std::vector<std::vector<double>>& a, int n, int m) {
    double s = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < m; ++j)
            s += a[j][i];
    return s;
}
"""


def test_the_findings_of_a_column_sum_carry_what_they_proved() -> None:
    site = function_by_name(COLSUM, "cpp", "colsum", uri="file:///t.cc")
    found = {f.rule: f for f in analyze(site)}
    swap = found["loop-interchange"].proof
    assert isinstance(swap, Interchange)
    assert (swap.outer.var, swap.inner.var, swap.arrays) == ("i", "j", ("a",))
    total = found["accumulator-chain"].proof
    assert isinstance(total, SerialSum) and (total.var, total.op) == ("s", "+")
    assert total.loop.var == "j"
    simd = found["simd-loop"].proof
    assert isinstance(simd, SimdPragma)
    assert simd.pragma == "#pragma omp simd reduction(+:s)" and simd.loop == total.loop.node


def test_an_interchange_the_swap_refuses_ends_in_a_note_with_its_reason() -> None:
    site = function_by_name(COLSUM, "cpp", "colsum", uri="file:///t.cc")
    res = rewrite(site, frozenset({"loop-interchange"}))
    assert not res.rules, res.code
    assert res.notes == (
        "loop-interchange: the nest over `i` and `j` on line 4 stays: it walks memory against "
        "its storage order but cannot be swapped safely: it accumulates into a scalar, whose "
        "order the swap would change",)


def test_a_sum_the_split_leaves_ends_in_a_note_with_its_reason() -> None:
    src = ("double f(const double* a, int n) { double s = 0; int i;\n"
           "  for (i = 0; i < n; ++i) s += a[i]; return s + i; }\n")
    site = function_by_name(src, "cpp", "f", uri="file:///t.cc")
    res = rewrite(site, frozenset({"accumulator-chain"}), extra_phases=last_bit_phases())
    assert not res.rules, res.code
    assert res.notes == ("accumulator-chain: the sum into `s` on line 2 stays: its counter "
                         "`i` is declared outside the loop",)


def test_the_loops_inside_a_parallel_loop_are_found_once_it_is_left_serial() -> None:
    src = """void f(double* __restrict a, int n, int m) {
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < m; ++j)
            a[i * m + j] = i + j;
}
"""
    site = function_by_name(src, "cpp", "f", uri="file:///t.cc")
    inp = rule_input(site, site.text)
    assert inp is not None
    (outer,) = openmp(inp.facts)  # the inner loop is covered by the outer one's pragma
    assert isinstance(outer.proof, ParallelLoop) and outer.proof.loop.var == "i"
    (inner,) = inner_findings(inp.facts, outer)
    assert isinstance(inner.proof, ParallelLoop) and inner.proof.loop.var == "j"
    assert inner.proof.pragma.startswith("#pragma omp parallel for if(")
    assert list(inner_findings(inp.facts, inner)) == []
