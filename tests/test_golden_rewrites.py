"""Every rule's examples, rewritten: the exact text a user would get, kept in tests/golden/ and
read by a person as a reviewer would. A change to a rule that changes what it writes shows
here; look at the new text, then regenerate with ``PERFPILOT_UPDATE_GOLDEN=1``.

The text is the rule's rewrite with the changed lines formatted as the optimizer formats them
(``optimizing/formatting.py``, a style read off the example), so clang-format must be
installed. Each golden file is also checked for what no reviewer would accept: an immediately
invoked lambda, a statement chained on an assignment, a parenthesized whole right-hand side.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.optimizing.builtin import rewrite
from perfpilot.optimizing.formatting import clang_format, format_candidate
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.registry import LAST_BIT, RULE_SPECS, last_bit_phases

GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("PERFPILOT_UPDATE_GOLDEN") == "1"
CASES = [pytest.param(spec, n, ex, id=f"{spec.id}-{n}")
         for spec in RULE_SPECS if spec.rewrite is not None or spec.id in LAST_BIT
         for n, ex in enumerate(spec.examples)]

needs_clang_format = pytest.mark.skipif(clang_format() is None,
                                        reason="clang-format is not installed")

# What a reviewer sends back, whatever the rule.
IMMEDIATE_LAMBDA = re.compile(r"\[[^\]]*\]\s*(?:\([^)]*\))?\s*(?:->\s*[\w:<> ]+)?\s*\{[^{}]*"
                              r"(?:\{[^{}]*\}[^{}]*)*\}\s*\(\s*\)")
CHAINED_ASSIGNMENT = re.compile(r"\(\s*\w+\s*[-+*/]?=[^;()]*\)\s*[-+*/]?=")
WHOLE_RIGHT_SIDE_PARENTHESIZED = re.compile(r"(?<![=!<>])[-+*/]?=\s*\(\(([^()]|\([^()]*\))*\)"
                                            r"\s*[-+*/]\s*\(([^()]|\([^()]*\))*\)\);")


def _path(spec: RuleSpec, n: int, ex: Example) -> Path:
    return GOLDEN / f"{spec.id}-{n}.{'c' if ex.language == 'c' else 'cpp'}"


def rewritten_text(spec: RuleSpec, ex: Example) -> str:
    """The example's rewrite under the rule alone, formatted as the optimizer formats it."""
    site = function_by_name(ex.source, ex.language, ex.function, uri="untitled:example",
                            check_errors=False)
    extra = last_bit_phases() if spec.id in LAST_BIT else ()
    ids = spec.rewrites_as | ({spec.id} if spec.id in LAST_BIT else frozenset())
    res = rewrite(site, ids, extra)
    assert res.changed, res.notes
    return format_candidate(site, res.code) + "\n"


@needs_clang_format
@pytest.mark.parametrize(("spec", "n", "example"), CASES)
def test_the_rewrite_is_the_reviewed_text(spec: RuleSpec, n: int, example: Example) -> None:
    text = rewritten_text(spec, example)
    path = _path(spec, n, example)
    if UPDATE:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"no golden text for {path.name}: run with PERFPILOT_UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8"), \
        f"{spec.id} now writes other text than tests/golden/{path.name} (review it, then " \
        "regenerate with PERFPILOT_UPDATE_GOLDEN=1)"


def test_every_golden_file_belongs_to_an_example() -> None:
    wanted = {_path(*p.values).name for p in CASES}  # type: ignore[arg-type]
    present = {p.name for p in GOLDEN.iterdir()} if GOLDEN.is_dir() else set()
    assert present <= wanted, sorted(present - wanted)
    assert present == wanted or UPDATE or clang_format() is None, sorted(wanted - present)


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.c*")), ids=lambda p: p.name)
def test_no_golden_text_holds_what_a_reviewer_sends_back(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert not IMMEDIATE_LAMBDA.search(text), "an immediately invoked lambda"
    assert not CHAINED_ASSIGNMENT.search(text), "a statement chained on an assignment"
    assert not WHOLE_RIGHT_SIDE_PARENTHESIZED.search(text), "a parenthesized right-hand side"


@pytest.mark.parametrize(("bad", "pattern"), [
    ("acc += [&]() -> double { const double b = x - c; return b * b; }();", IMMEDIATE_LAMBDA),
    ("const long r = [&] { return f(n); }();", IMMEDIATE_LAMBDA),
    ("(s += word) += \" \";", CHAINED_ASSIGNMENT),
    ("out[i] = ((s[i] * g) * (s[i] * g));", WHOLE_RIGHT_SIDE_PARENTHESIZED),
])
def test_the_reviewer_checks_catch_what_they_name(bad: str, pattern: re.Pattern[str]) -> None:
    assert pattern.search(bad)
