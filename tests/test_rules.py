"""Every rule module: its detection fires on its own examples, and where it has a rewrite, the
built-in optimizer turns that finding into a candidate that compiles (plan and rewrite agree)."""

from __future__ import annotations

import asyncio
import importlib
import pkgutil
import shutil

import pytest

import perfpilot.rules as rules_package
from perfpilot.code.locate import function_by_name
from perfpilot.code.site import FunctionSite
from perfpilot.optimizing.builtin import BuiltinOptimizer, rewrite
from perfpilot.planning.builtin import analyze_site, select
from perfpilot.planning.builtin.advice import mark_advice
from perfpilot.progress import JobContext
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.finding import RULES
from perfpilot.rules.registry import LAST_BIT, RULE_SPECS, last_bit_phases, rewrite_phases
from perfpilot.strategy.values import Plan

EXAMPLES = [pytest.param(spec, n, ex, id=f"{spec.id}-{n}")
            for spec in RULE_SPECS for n, ex in enumerate(spec.examples)]
REWRITING = [p for p in EXAMPLES if p.values[0].rewrite is not None]  # type: ignore[union-attr]
# Rewrites that may change a floating result in its last bit run only when a plan names them.
LAST_BIT_EXAMPLES = [p for p in EXAMPLES if p.values[0].id in LAST_BIT]  # type: ignore[union-attr]


def site_of(ex: Example) -> FunctionSite:
    return function_by_name(ex.source, ex.language, ex.function, uri="file:///t.cc",
                            check_errors=False)


# The shared rule infrastructure at the top of rules/; every rule lives in a family package.
INFRASTRUCTURE = {"base", "by_finding", "registry", "finding", "edits", "emit", "rewrite_input",
                  "rewriting"}
HELPER_PACKAGES = {"detect"}


def family_rule_modules() -> list[str]:
    """The modules of every family package that declare a rule (proof modules declare none)."""
    found = []
    for family in pkgutil.iter_modules(rules_package.__path__):
        if not family.ispkg or family.name in HELPER_PACKAGES:
            continue
        package = importlib.import_module(f"{rules_package.__name__}.{family.name}")
        members = [importlib.import_module(f"{package.__name__}.{m.name}")
                   for m in pkgutil.iter_modules(package.__path__) if not m.ispkg]
        rules = [m.__name__.rpartition(".")[2] for m in members
                 if isinstance(getattr(m, "RULE", None), RuleSpec)]
        assert rules, f"family package {family.name} holds no rule"
        found += rules
    return found


def test_every_rule_module_is_registered_once_with_an_example() -> None:
    top = {m.name for m in pkgutil.iter_modules(rules_package.__path__) if not m.ispkg}
    assert top == INFRASTRUCTURE
    registered = [spec.id.replace("-", "_") for spec in RULE_SPECS]
    assert sorted(registered) == sorted(family_rule_modules())
    assert all(spec.examples for spec in RULE_SPECS)


def test_every_finding_id_belongs_to_a_rule_module() -> None:
    owners = {i for spec in RULE_SPECS for i in spec.finding_ids}
    assert owners == set(RULES)


def test_every_rewrite_id_is_a_finding_id_and_runs_once() -> None:
    finding_ids = set(RULES)
    for spec in RULE_SPECS:
        assert spec.rewrites_as <= finding_ids
        assert bool(spec.rewrite) == bool(spec.rewrites_as)
    fns = [fn for phase in rewrite_phases() for _ids, fn in phase]
    assert len(fns) == len(set(fns))


@pytest.mark.parametrize(("spec", "n", "example"), EXAMPLES)
def test_the_rule_detects_its_own_examples(spec: RuleSpec, n: int, example: Example) -> None:
    analysis = analyze_site(site_of(example), detectors=((spec.id, spec.detect),))
    assert not any("failed" in note for note in analysis.notes), analysis.notes
    found = [f for f in analysis.findings if f.rule in spec.finding_ids]
    assert found, f"{spec.id} found nothing in its example {n}"
    assert all(f.explanation and f.lines for f in found)


@pytest.mark.parametrize(("spec", "n", "example"), REWRITING)
def test_a_finding_with_a_rewrite_becomes_a_candidate(spec: RuleSpec, n: int,
                                                      example: Example) -> None:
    site = site_of(example)
    plan = Plan(select(analyze_site(site).findings, limit=64), "builtin")
    assert spec.finding_ids & {s.rule for s in plan.strategies}, f"{spec.id} is not planned"
    result = rewrite(site, spec.rewrites_as)
    assert result.changed and result.rules <= spec.rewrites_as, result.notes
    if shutil.which("g++") is None or shutil.which("gcc") is None:
        pytest.skip("needs gcc and g++ to check the candidate compiles")
    optimizer = BuiltinOptimizer(rules=sorted(spec.rewrites_as))
    out = asyncio.run(optimizer.optimize(site, plan, JobContext()))
    assert out.candidates, out.rejected
    assert out.candidates[0].code != site.text
    # the candidate says it carries out the plan's own strategy for this finding
    carried = {s.rule for s in out.candidates[0].strategies if s in plan.strategies}
    assert carried & spec.finding_ids, out.candidates[0].strategies


@pytest.mark.parametrize(("spec", "n", "example"), REWRITING + LAST_BIT_EXAMPLES)
def test_a_finding_the_rewrite_carries_out_is_not_advice(spec: RuleSpec, n: int,
                                                         example: Example) -> None:
    # the planner asks the same rewrite: on the rule's own example it changes the code
    site = site_of(example)
    planned = tuple(s for s in select(analyze_site(site).findings, limit=64)
                    if s.rule in spec.finding_ids and not s.callee)
    assert planned, f"{spec.id} is not planned"
    assert [s.advice for s in mark_advice(site, planned)] == [""] * len(planned)


def test_every_last_bit_rule_has_a_rewrite_and_examples() -> None:
    assert {s.id for s in RULE_SPECS} >= LAST_BIT
    ids = {i for phase in last_bit_phases() for ids, _fn in phase for i in ids}
    assert ids == LAST_BIT
    assert {p.values[0].id for p in LAST_BIT_EXAMPLES} == LAST_BIT  # type: ignore[union-attr]


@pytest.mark.parametrize(("spec", "n", "example"), LAST_BIT_EXAMPLES)
def test_a_planned_last_bit_finding_becomes_a_candidate(spec: RuleSpec, n: int,
                                                        example: Example) -> None:
    site = site_of(example)
    plan = Plan(select(analyze_site(site).findings, limit=64), "builtin")
    assert spec.id in {s.rule for s in plan.strategies}, f"{spec.id} is not planned"
    if shutil.which("g++") is None or shutil.which("gcc") is None:
        pytest.skip("needs gcc and g++ to check the candidate compiles")
    out = asyncio.run(BuiltinOptimizer(variants=False).optimize(site, plan, JobContext()))
    made = [c for c in out.candidates if spec.id in {s.rule for s in c.strategies}]
    assert made, (out.candidates, out.rejected)
    assert "last bit" in next(s for s in plan.strategies if s.rule == spec.id).explanation
