"""The char-set-table rule: one character tested against four or more constants in a loop, or
looked up in a string literal (``char_membership.py``).

``c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'`` compares and branches once per
constant on every iteration; a 256-entry table of the set answers with one load,
``tbl[(unsigned char)c] != 0``. The rewrite needs: every operand of the ``||`` chain is
``E == K`` (or every operand of an ``&&`` chain ``E != K``, the complement) with one and the
same ``E``, an expression of a character type (``char``, ``signed char``, ``unsigned char``:
a variable, an element of a string, character array or pointer, or ``*p``) that has no side
effects and calls nothing; and every ``K`` a constant from 0 to 127. For such constants
``E == K`` holds exactly when ``(unsigned char)E == K`` whatever the signedness of ``char``, and
``E``, having no effects, may be read once instead of up to once per test. The same table
answers ``std::string("aeiou").find(E) != std::string::npos`` and ``strchr(" \t\n", E)`` (whose
set includes the NUL it also finds) for such an ``E``, without building or scanning a string.

A character looked up in a named ``std::string`` in a loop (``set.find(E) != npos``,
``set.find(E) < set.size()``, ``strchr(set.c_str(), E)``) gets the same table, filled from the
string's bytes before the outermost loop that cannot change it (``byte_tables.py``):
``find`` converts ``E`` to ``char`` and compares bytes, so any of the string's bytes (a NUL or
one above 127 included) belongs to the set; ``strchr`` sees the bytes before the first NUL and
the NUL itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.declarations import VarType
from perfpilot.code.facts import FunctionFacts, Loop
from perfpilot.code.read_only_copy import UnitNames, unit_names
from perfpilot.code.syntax import (
    Node,
    char_value,
    line,
    node_text,
    operator,
    root_name,
    statements,
    unparenthesized,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.counting.byte_tables import table_loops
from perfpilot.rules.counting.char_membership import STRCHR_ALSO_FINDS, memberships
from perfpilot.rules.detect.common import code, rng
from perfpilot.rules.edits import Edit
from perfpilot.rules.emit import cast
from perfpilot.rules.finding import Finding, Proof, make_finding
from perfpilot.rules.rewrite_input import (
    Left,
    Planned,
    RuleInput,
    insertion_before,
    left_note,
    newline_of,
    statement_slot_ok,
)

RULE_ID = "char-set-table"
MIN_TESTS = 4
_CHAR_TYPES = frozenset({"char", "signed char", "unsigned char"})
_STRINGS = frozenset({"std::string", "string", "std::string_view", "string_view"})
_PURE_PARTS = frozenset({"identifier", "number_literal", "char_literal", "subscript_expression",
                         "subscript_argument_list", "pointer_expression", "binary_expression",
                         "parenthesized_expression", "field_expression", "field_identifier"})


@dataclass(frozen=True)
class CharSet(Proof):
    """A test of one character against a set: the proof of a finding when the set is fixed
    (``source`` empty), one of a ``NamedSearches`` proof's tests otherwise."""

    node: Node  # the whole || (or &&) expression, or the membership test
    subject: Node  # E
    values: frozenset[int]
    negated: bool  # an && chain of != : true outside the set
    form: str = "chain"  # or the membership call: find, strchr
    source: str = ""  # the named string whose bytes are the set

    def lookup(self, table: str) -> str:
        test = f"{table}[{cast('unsigned char', self.subject)}] {'==' if self.negated else '!='} 0"
        wrapped = self.node.parent is not None and \
            self.node.parent.type in ("parenthesized_expression", "condition_clause")
        return test if wrapped else f"({test})"


@dataclass(frozen=True)
class NamedSearches(Proof):
    """The searches of the named string ``source`` (by ``form``: find or strchr) in the loop
    ``loop``, the outermost loop that cannot change the string and has a slot above it: one
    table of its bytes, filled before that loop, answers them all."""

    source: str
    form: str
    loop: Node
    tests: tuple[CharSet, ...]


def _operands(n: Node, op: str) -> list[Node]:
    while n.type == "parenthesized_expression" and n.named_children:
        n = n.named_children[0]
    if n.type == "binary_expression" and operator(n) == op:
        left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
        if left is None or right is None:
            return [n]
        return _operands(left, op) + _operands(right, op)
    return [n]


def _is_char(v: VarType | None) -> bool:
    return v is not None and " ".join(v.base.replace("const", "").split()) in _CHAR_TYPES


def _char_subject(facts: FunctionFacts, e: Node) -> bool:
    """``e`` is of a character type, reads memory at most once and has no effect."""
    if any(n.type not in _PURE_PARTS for n in _walk(e)):
        return False
    if any(n.type == "binary_expression" and operator(n) not in ("+", "-", "*")
           for n in _walk(e)):
        return False
    if e.type == "identifier":
        v = facts.var(node_text(e))
        return _is_char(v) and v is not None and not v.pointer and not v.array
    if e.type == "subscript_expression":
        base = e.child_by_field_name("argument")
        v = facts.var(root_name(base)) if base is not None and base.type == "identifier" \
            else None
        if v is None:
            return False
        if v.pointer == 1 or (v.array and not v.pointer):
            return _is_char(VarType(v.base))
        plain = " ".join(v.base.replace("const", "").split())
        return not v.pointer and (plain in _STRINGS or _is_char(v.element))
    if e.type == "pointer_expression" and operator(e) == "*":
        arg = e.child_by_field_name("argument")
        v = facts.var(node_text(arg)) if arg is not None and arg.type == "identifier" else None
        return v is not None and v.pointer == 1 and _is_char(VarType(v.base))
    return False


def _walk(n: Node) -> Iterator[Node]:
    stack = [n]
    while stack:
        cur = stack.pop()
        yield cur
        stack.extend(cur.named_children)


def _chain(facts: FunctionFacts, n: Node) -> CharSet | None:
    """The chain rooted at the binary expression ``n``, when it is one."""
    for joint, test, negated in (("||", "==", False), ("&&", "!=", True)):
        if operator(n) != joint:
            continue
        parts = _operands(n, joint)
        if len(parts) < MIN_TESTS:
            return None
        subject: Node | None = None
        values: set[int] = set()
        for p in parts:
            if p.type != "binary_expression" or operator(p) != test:
                return None
            left, right = p.child_by_field_name("left"), p.child_by_field_name("right")
            if left is None or right is None:
                return None
            k, e = (char_value(right), left) if char_value(right) is not None else \
                (char_value(left), right)
            if k is None or not 0 <= k <= 127:
                return None
            if subject is None:
                subject = e
            elif "".join(node_text(e).split()) != "".join(node_text(subject).split()):
                return None
            values.add(k)
        if subject is None or not _char_subject(facts, subject):
            return None
        return CharSet(n, subject, frozenset(values), negated)
    return None


def _chains(facts: FunctionFacts) -> Iterator[CharSet]:
    found: list[CharSet] = []
    for n in facts.in_loops("binary_expression"):
        parent = unparenthesized(n).parent
        if parent is not None and parent.type == "binary_expression" and \
                operator(parent) == operator(n):
            continue  # part of a longer chain
        chain = _chain(facts, n)
        if chain is not None:
            found.append(chain)
    found += [CharSet(m.node, m.subject, m.values, m.negated, m.form, m.source)
              for m in memberships(facts.in_loops("call_expression"),
                                   lambda name: _named_string(facts, name))
              if _char_subject(facts, m.subject)]
    yield from sorted(found, key=lambda c: c.node.start_byte)


def _named_string(facts: FunctionFacts, name: str) -> bool:
    v = facts.var(name)
    return v is not None and not v.pointer and not v.array and \
        " ".join(v.base.replace("const", "").split()) in ("std::string", "string")


def _table_loop(facts: FunctionFacts, units: UnitNames, c: CharSet) -> tuple[Loop | None, str]:
    """The outermost loop before which the table of a named string's bytes may be built."""
    loops, why = table_loops(facts, units, c.node, c.source)
    return next((lp for lp in loops if statement_slot_ok(lp.node)), None), \
        why or "no statement can go before its loop"


def _named_searches(facts: FunctionFacts, chains: list[CharSet]
                    ) -> tuple[list[NamedSearches], list[tuple[CharSet, str]]]:
    """The searches of named strings grouped by the loop their table goes before, and those
    no table can answer (with why)."""
    units = unit_names(facts.unit)
    groups: dict[tuple[str, str, int], tuple[Loop, list[CharSet]]] = {}
    refused: list[tuple[CharSet, str]] = []
    for c in chains:
        lp, why = _table_loop(facts, units, c)
        if lp is None:
            refused.append((c, why))
        else:
            groups.setdefault((c.source, c.form, lp.node.start_byte), (lp, []))[1].append(c)
    return [NamedSearches(source, form, lp.node, tuple(found))
            for (source, form, _), (lp, found) in groups.items()], refused


def char_set_table(facts: FunctionFacts) -> Iterator[Finding]:
    """A character compared with four or more constants, or looked up in a string, in a
    loop."""
    chains = list(_chains(facts))
    for c in chains:
        if c.source:
            continue
        how = ("against" if c.form == "chain" else
               "by building a string and searching it for" if c.form == "find" else
               "by scanning a string literal for")
        yield make_finding(
            RULE_ID,
            f"`{code(c.node)}` on line {line(c.node)} tests `{node_text(c.subject)}` {how} "
            f"{len(c.values)} characters one after another on every iteration of the loop: a "
            f"256-entry table of the set, indexed by `(unsigned char){node_text(c.subject)}`, "
            "answers with one load and no branch per character.",
            [line(c.node)], node_range=rng(c.node), names=[node_text(c.subject)],
            proof=c,
        )
    named = [c for c in chains if c.source]
    if not named:
        return
    for group in _named_searches(facts, named)[0]:
        c, more = group.tests[0], len(group.tests) - 1
        also = f" (and {more} more search{'es' if more > 1 else ''} of it in that loop)" \
            if more else ""
        yield make_finding(
            RULE_ID,
            f"`{code(c.node)}` on line {line(c.node)}{also} searches the string `{c.source}` "
            f"for `{node_text(c.subject)}` on every iteration of the loop, and the loop does "
            f"not change `{c.source}`: a 256-entry table of its bytes, filled once before "
            f"the loop and indexed by `(unsigned char){node_text(c.subject)}`, answers with "
            "one load.",
            [line(t.node) for t in group.tests], node_range=rng(c.node),
            names=[node_text(c.subject), c.source], proof=group,
        )


def _table(name: str, values: frozenset[int], nl: str, indent: str) -> str:
    top = max(values) + 1
    rows = []
    for start in range(0, top, 16):
        rows.append(",".join("1" if k in values else "0"
                             for k in range(start, min(top, start + 16))))
    body = f",{nl}{indent}    ".join(rows)
    # entries past the last listed one are zero
    return (f"static const unsigned char {name}[256] = {{{nl}{indent}    {body}{nl}"
            f"{indent}}};")


def fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """A fixed set: a table declared at the top of the function and one lookup in it. A
    named string's searches: a table of its bytes filled before the loop the finding
    proved, and a lookup for each search."""
    proof = finding.proof
    if isinstance(proof, NamedSearches):
        return _named_fix(inp, proof)
    assert isinstance(proof, CharSet)
    body = inp.function.child_by_field_name("body")
    first = statements(body)[0] if statements(body) else None
    if first is None:
        return Left("", proof.node, "the function has no statement to put the table above")
    nl = newline_of(inp.text)
    line_start = inp.data.rfind(b"\n", 0, first.start_byte) + 1
    indent = inp.data[line_start:first.start_byte].decode("utf-8")
    indent = indent if indent.strip() == "" else ""
    name = inp.fresh_name("char_set")
    return Planned(
        (insertion_before(inp, first, _table(name, proof.values, nl, indent), RULE_ID, -30),
         Edit(proof.node.start_byte, proof.node.end_byte, proof.lookup(name), RULE_ID)),
        f"The test of '{node_text(proof.subject)}' against {len(proof.values)} characters at "
        f"line {inp.line_of(proof.node)} is now one lookup in the table '{name}'.",
        (proof.node,), includes=())


def _named_fix(inp: RuleInput, proof: NamedSearches) -> Planned:
    """One table of the bytes of the named string before the loop, and a lookup for each
    search."""
    source, loop = proof.source, proof.loop
    name = inp.fresh_name(f"{source}_has")
    byte = inp.fresh_name("byte")
    fill = f"for (unsigned char {byte} : {source}) {name}[{byte}] = 1;"
    if proof.form == "strchr":  # the bytes before the first NUL, and the NUL
        fill = f"for (unsigned char {byte} : {source}) {{ if ({byte} == 0) break; " \
            f"{name}[{byte}] = 1; }}" + "".join(f" {name}[{k}] = 1;"
                                               for k in sorted(STRCHR_ALSO_FINDS))
    edits = [insertion_before(inp, loop, f"unsigned char {name}[256] = {{}};", RULE_ID, -14),
             insertion_before(inp, loop, fill, RULE_ID, -13)]
    edits += [Edit(c.node.start_byte, c.node.end_byte, c.lookup(name), RULE_ID)
              for c in proof.tests]
    return Planned(
        tuple(edits),
        f"The loop at line {inp.line_of(loop)} searched '{source}' for a character on every "
        f"iteration; the bytes of '{source}' now fill the table '{name}' once before the loop "
        "and each search is one lookup in it.",
        (loop, *(c.node for c in proof.tests)), includes=())


def refused(inp: RuleInput) -> list[str]:
    """A note for each search of a named string no table can answer: why it stays is worth
    saying though the plan does not name it."""
    named = [c for c in _chains(inp.facts) if c.source]
    left = _named_searches(inp.facts, named)[1] if named else []
    return [left_note(inp, RULE_ID, Left(f"the search of '{c.source}'", c.node, why))
            for c, why in left]


RULE = RuleSpec(
    id=RULE_ID,
    detect=char_set_table,
    fix=fix,
    refused=refused,
    rewrites_as=frozenset({RULE_ID}),
    phase=1,
    order=10,
    examples=(
        Example("cpp", """
#include <string>
int vowels(const std::string& s) {
    int n = 0;
    for (std::size_t i = 0; i < s.size(); ++i)
        if (s[i] == 'a' || s[i] == 'e' || s[i] == 'i' || s[i] == 'o' || s[i] == 'u')
            ++n;
    return n;
}
""", "vowels"),
    ),
)
