"""The const-ref-copy rule: a container, string or plain struct copied on every iteration of a
loop and only read, which can be a const reference to what it copies.

``std::vector<double> row = m[i];`` (also ``auto row = m[i];``, ``T x(src);``, ``T x{src};``)
and ``for (std::string s : names)`` allocate and copy a whole object on every iteration. When
``code/read_only_copy.py`` proves that the copy is only read, that its source cannot change
while it lives and that no conversion is involved, the copy becomes ``const T &``
(``const auto &``). Hoisting such a declaration out of the loop (the hoist-container rule)
would still copy on every iteration; this rule runs in an earlier phase, and the hoist rule
neither reports nor rewrites a declaration it has made a reference.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.read_only_copy import CopyProof, loop_copies
from perfpilot.code.syntax import (
    line,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import cpp, rng
from perfpilot.rules.edits import Edit
from perfpilot.rules.finding import Finding, Proof, make_finding
from perfpilot.rules.rewrite_input import Left, Planned, RuleInput

RULE_ID = "const-ref-copy"


@dataclass(frozen=True)
class ReadOnlyCopy(Proof):
    """A loop-local copy proved to be only read while its source stays: where ``const`` and
    ``&`` go (``code/read_only_copy.py`` has the proof)."""

    copy: CopyProof


def _what(node_type: str) -> str:
    return "each element of the range" if node_type == "for_range_loop" else "its source"


def detect(facts: FunctionFacts) -> Iterator[Finding]:
    """A loop-local copy of a class value, proved to be only read while its source stays."""
    if not cpp(facts):
        return
    for node, proof in loop_copies(facts):
        if not isinstance(proof, CopyProof):
            continue
        yield make_finding(
            RULE_ID,
            f"`{proof.name}` (`{proof.type_text}`, line {line(node)}) copies {_what(node.type)} "
            "on every iteration, allocating and copying every element, although it is only "
            f"read and its source does not change while it lives: declare it `const "
            f"{proof.type_text} &{proof.name}`.",
            [line(node)], node_range=rng(node), names=[proof.name],
            # better not copied at all than hoisted: hoist-container steps aside
            claims=[rng(node)],
            proof=ReadOnlyCopy(proof))


def fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """The proved copy becomes a const reference."""
    proof = finding.proof
    assert isinstance(proof, ReadOnlyCopy)
    copy = proof.copy
    edits = [Edit(copy.amp_at, copy.amp_at, "&", RULE_ID)]
    if copy.const_at is not None:
        edits.append(Edit(copy.const_at, copy.const_at, "const ", RULE_ID))
    return Planned(
        tuple(edits),
        f"'{copy.name}' ({copy.type_text}) was copied on every iteration but only read "
        f"while its source stays unchanged; as 'const {copy.type_text} &' it refers to the "
        "source instead.", (copy.node,), includes=())


def refused(inp: RuleInput) -> list[str]:
    """Why each loop-local copy that was not proved stays a copy."""
    if inp.language != "cpp":
        return []
    return [f"{RULE_ID}: the copy on line {inp.line_of(node)} stays: {why}"
            for node, why in loop_copies(inp.facts) if not isinstance(why, CopyProof)]


RULE = RuleSpec(
    id=RULE_ID,
    detect=detect,
    fix=fix,
    refused=refused,
    rewrites_as=frozenset({RULE_ID}),
    phase=1,
    order=4,
    examples=(
        Example("cpp", """
#include <vector>
double total(const std::vector<std::vector<double>>& m) {
    double tot = 0;
    for (std::size_t i = 0; i < m.size(); ++i) {
        std::vector<double> row = m[i];
        for (double x : row) tot += x;
    }
    return tot;
}
""", "total"),
        Example("cpp", """
#include <string>
#include <vector>
long letters(const std::vector<std::string>& v) {
    long n = 0;
    for (std::string s : v) n += (long)s.size();
    return n;
}
""", "letters"),
    ),
)
