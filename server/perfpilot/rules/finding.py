"""Finding: one concrete performance pattern found by a detector, and the rule table."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import IntEnum
from types import MappingProxyType

from perfpilot.strategy.categories import Category, category_by_id
from perfpilot.strategy.values import Strategy


class Gain(IntEnum):
    """The kind of speed-up a rule brings. Plans list the larger kinds first, whatever the
    impact numbers say: a complexity change beats any constant factor once inputs grow."""

    COMPLEXITY = 0  # the complexity class falls: O(n^2) -> O(n), exponential -> linear
    PARALLEL = 1  # the same work spread over cores or vector lanes
    CONSTANT = 2  # the same work done cheaper: fewer calls, divisions, copies, cache misses


GAIN_WORDS: Mapping[Gain, str] = MappingProxyType({
    Gain.COMPLEXITY: "complexity changes",
    Gain.PARALLEL: "parallelism",
    Gain.CONSTANT: "constant factors",
})


@dataclass(frozen=True)
class Rule:
    """A detector's rule: its id, the category it belongs to, the kind of gain it brings, and
    its base expected impact (which orders rules of one kind of gain)."""

    id: str
    category_id: int
    impact: float
    gain: Gain = Gain.CONSTANT


_C, _P = Gain.COMPLEXITY, Gain.PARALLEL

# The plan lists complexity changes, then parallelism, then constant factors (``gain``); the
# base impact orders rules within one kind: algorithmic > locality > loop > call details.
RULES: Mapping[str, Rule] = MappingProxyType({r.id: r for r in (
    Rule("invariant-inner-loop", 1, 0.97, _C),
    Rule("invariant-algorithm-call", 1, 0.96, _C),
    Rule("linear-search-in-loop", 1, 0.95, _C),
    Rule("seen-list-set", 1, 0.94, _C),
    Rule("assoc-list-map", 1, 0.94, _C),
    Rule("pair-count-sort", 1, 0.91, _C),
    Rule("count-table", 1, 0.9, _C),
    Rule("cross-pair-count", 1, 0.91, _C),
    Rule("range-count-query", 1, 0.91, _C),
    Rule("memo-recursion", 1, 0.95, _C),
    Rule("manual-sort", 15, 0.93, _C),
    Rule("prefix-sum", 1, 0.92, _C),
    Rule("sorted-linear-scan", 1, 0.90, _C),
    Rule("sort-for-selection", 1, 0.74, _C),
    Rule("sort-for-prefix", 1, 0.72, _C),
    Rule("sort-compare-counts", 1, 0.73, _C),
    Rule("repeated-extraction", 1, 0.86, _C),
    Rule("sorted-insert", 1, 0.84, _C),
    Rule("strlen-condition", 4, 0.78, _C),
    Rule("accumulator-chain", 9, 0.30),
    Rule("string-concat-loop", 3, 0.80, _C),
    Rule("substr-compare", 14, 0.55),
    Rule("flag-early-exit", 4, 0.60),
    Rule("hoist-invariant-call", 4, 0.50),
    Rule("invariant-expression", 4, 0.32),
    Rule("openmp-reduction", 6, 0.78, _P),
    Rule("openmp-for", 6, 0.80, _P),
    Rule("loop-interchange", 7, 0.72),
    Rule("vector-front-op", 2, 0.70, _C),
    Rule("erase-in-loop", 15, 0.68, _C),
    Rule("small-key-table", 2, 0.60, _C),
    Rule("ordered-map-unneeded", 2, 0.55, _C),
    Rule("list-to-vector", 2, 0.50),
    Rule("fast-io", 8, 0.60),
    Rule("endl", 8, 0.55),
    Rule("stdio-loop", 8, 0.40),
    Rule("alloc-in-loop", 3, 0.50),
    Rule("reserve", 3, 0.42),
    Rule("hoist-container", 14, 0.45),
    Rule("const-ref-copy", 14, 0.50),
    Rule("simd-loop", 13, 0.40, _P),
    Rule("const-ref-param", 10, 0.40),
    Rule("invariant-branch", 11, 0.35),
    Rule("branchless-select", 11, 0.22),
    Rule("mod-wrap", 9, 0.20),
    Rule("restrict-alias", 5, 0.30),
    Rule("pow-strength", 12, 0.30),
    Rule("div-by-invariant", 12, 0.25),
    Rule("call-in-hot-loop", 10, 0.25),
    Rule("std-algorithm", 15, 0.20),
    Rule("qsort-to-sort", 15, 0.45),
    Rule("char-set-table", 11, 0.28),
    Rule("pow2-divmod", 9, 0.15),
)})


@dataclass(frozen=True)
class Proof:
    """What a detection proved about one site, for the rule's rewrite (``RuleSpec.fix``): each
    rule subclasses it with the nodes and ranges its rewrite needs, so the rewrite acts on
    what was proved instead of finding its target again. Nodes belong to the tree the
    detection read; a fix reads them on that same tree."""


@dataclass(frozen=True)
class InCallee:
    """Where a finding lies when it is not in the analysed function but in a function of the
    unit that it calls directly: that function's name and the line of the first call."""

    name: str
    call_line: int


@dataclass(frozen=True)
class Finding:
    """One detected pattern, with what a plan needs and what a rewrite needs.

    ``lines`` are 1-based lines of the translation unit (evidence, first is the main one).
    ``loop_range`` and ``node_range`` are byte ranges into the UTF-8 encoding of the unit text
    (the same convention as ``FunctionSite.start_byte``): the loop the finding concerns and the
    exact node (call, declaration, parameter, statement). ``names`` are the variables or calls
    involved; ``proof`` is what the detection proved, for the rule's ``fix`` (see ``Proof``).
    ``callee`` is set on findings in a function the analysed one calls (see ``InCallee``).
    ``claims`` are byte ranges (same convention) of the code whose cost this finding's rewrite
    removes: a finding of another rule of the same category inside one of them says the same
    strategy less precisely, and ranking drops it (``planning.builtin.analysis.rank``).
    """

    rule: str
    category_id: int
    explanation: str
    lines: tuple[int, ...]
    impact: float
    loop_range: tuple[int, int] | None = None
    node_range: tuple[int, int] | None = None
    names: tuple[str, ...] = ()
    callee: InCallee | None = None
    claims: tuple[tuple[int, int], ...] = ()
    # What the rewrite needs; left out of comparison, hash and repr (a value of the finding
    # is what it says, not the nodes it holds).
    proof: Proof | None = field(default=None, compare=False, hash=False, repr=False)

    @property
    def gain(self) -> Gain:
        """The kind of speed-up (complexity, parallelism, constant factor) of its rule."""
        known = RULES.get(self.rule)
        return known.gain if known is not None else Gain.CONSTANT

    @property
    def category(self) -> Category:
        """The strategy category of this finding."""
        return category_by_id(self.category_id)

    def to_strategy(self) -> Strategy:
        """The finding as a plan strategy (category, explanation, lines, impact, rule, and the
        callee it lies in)."""
        return Strategy(self.category, self.explanation, self.lines, self.impact, self.rule,
                        self.callee.name if self.callee is not None else "")


def make_finding(rule: str, explanation: str, lines: tuple[int, ...] | list[int], *,
                 loop_range: tuple[int, int] | None = None,
                 node_range: tuple[int, int] | None = None,
                 names: tuple[str, ...] | list[str] = (),
                 bonus: float = 0.0,
                 claims: Iterable[tuple[int, int]] = (),
                 proof: Proof | None = None) -> Finding:
    """A Finding for ``rule`` with its category and base impact plus ``bonus`` (e.g. nesting);
    ``claims`` and ``proof``: see ``Finding``."""
    r = RULES[rule]
    return Finding(
        rule=rule,
        category_id=r.category_id,
        explanation=explanation[:1].upper() + explanation[1:],
        lines=tuple(dict.fromkeys(int(n) for n in lines)),
        impact=round(min(1.0, max(0.0, r.impact + bonus)), 3),
        loop_range=loop_range,
        node_range=node_range,
        names=tuple(names),
        claims=tuple(claims),
        proof=proof,
    )


def plan_order(f: Finding) -> tuple[int, float, tuple[int, ...], str]:
    """The sort key of findings in a plan: the larger kind of gain first, then impact."""
    return (int(f.gain), -f.impact, f.lines[:1], f.rule)


def depth_bonus(depth: int) -> float:
    """Extra impact for work nested deeper in loops (small: it orders within a class only)."""
    return min(0.06, 0.02 * max(0, depth - 1))
