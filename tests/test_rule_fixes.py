"""A finding carries its fix: a rule with ``fix`` rewrites exactly what its detection proved,
each finding once, and every finding it leaves ends in a note that names it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.locate import function_by_name
from perfpilot.code.syntax import Node, line, node_text
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.by_finding import by_finding
from perfpilot.rules.edits import Edit
from perfpilot.rules.finding import Finding, Proof, make_finding
from perfpilot.rules.registry import RULE_SPECS
from perfpilot.rules.rewrite_input import Left, Planned, RuleInput
from perfpilot.rules.rewriting import rule_input

FIXING = [pytest.param(spec, n, ex, id=f"{spec.id}-{n}")
          for spec in RULE_SPECS if spec.fix is not None
          for n, ex in enumerate(spec.examples)]


def analysed(ex: Example) -> RuleInput:
    site = function_by_name(ex.source, ex.language, ex.function, uri="file:///t.cc",
                            check_errors=False)
    inp = rule_input(site, site.text)
    assert inp is not None
    return inp


@pytest.mark.parametrize(("spec", "n", "example"), FIXING)
def test_every_finding_on_the_rewrite_text_carries_its_proof(spec: RuleSpec, n: int,
                                                              example: Example) -> None:
    inp = analysed(example)
    found = list(spec.detect(inp.facts))
    assert found, f"{spec.id} finds nothing on the text its rewrite sees"
    assert all(f.proof is not None for f in found), f"{spec.id}: a finding without its proof"
    assert spec.rewrite is not None
    changes, notes = spec.rewrite(inp)
    # one change or one note per finding: nothing found twice, nothing left in silence
    assert len(changes) + sum(1 for t in notes if t.startswith(f"{spec.id}:")) == len(found)
    assert changes, f"{spec.id} rewrites none of its own example's findings: {notes}"


@dataclass(frozen=True)
class _Divisions(Proof):
    division: Node


def _divisions(facts: FunctionFacts) -> Iterator[Finding]:
    for d in facts.nodes("binary_expression"):
        if node_text(d.child_by_field_name("operator")) == "/":
            yield make_finding("div-by-invariant", "a division", [line(d)],
                               proof=_Divisions(d))


def _halve_by_two_only(inp: RuleInput, finding: Finding) -> Planned | Left:
    proof = finding.proof
    assert isinstance(proof, _Divisions)
    right = proof.division.child_by_field_name("right")
    if node_text(right) != "2":
        return Left("", proof.division, "the divisor is not 2")
    left = proof.division.child_by_field_name("left")
    return Planned((Edit(proof.division.start_byte, proof.division.end_byte,
                         f"{node_text(left)} * 0.5", "div-by-invariant"),),
                   "halved", (proof.division, proof.division), includes=())


def test_by_finding_fixes_each_finding_once_and_names_each_it_leaves() -> None:
    source = """
double f(double a, double b) {
    double x = a / 2;
    double y = a / b;
    return x + y;
}
"""
    inp = analysed(Example("cpp", source, "f"))
    changes, notes = by_finding(_divisions, _halve_by_two_only)(inp)
    assert [(c.rule, c.lines, c.edits[0].text) for c in changes] == \
        [("div-by-invariant", (3,), "a * 0.5")]
    assert notes == ["div-by-invariant: `a / b` on line 4 stays: the divisor is not 2"]


def test_detection_on_the_rewrite_text_sees_the_units_globals_and_the_current_text() -> None:
    source = """
int limit = 10;
int f(int n) {
    return n < limit ? n : limit;
}
"""
    inp = analysed(Example("cpp", source, "f"))
    assert inp.facts.var("limit") is not None  # a global, read from the unit
    assert inp.facts.site.text == inp.text


def test_every_rewrite_is_made_from_findings() -> None:
    """A rule's rewrite is its ``fix`` run on its findings; a spec without one only shares the
    rewrite of a spec that has one (``strlen-condition`` is fixed by the call hoist)."""
    fixed = {s.rewrite for s in RULE_SPECS if s.fix is not None}
    unfixed = [s.id for s in RULE_SPECS
               if s.rewrite is not None and s.fix is None and s.rewrite not in fixed]
    assert unfixed == []
