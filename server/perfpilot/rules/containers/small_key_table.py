"""The small-key-table rule: a local map keyed by a one-byte type, used as a table.

``std::map<char, int> freq; for (char c : s) ++freq[c];`` walks a tree (or hashes into a
table) and allocates a node per new key for what is an array of 256 counts. When
``small_key_map.py`` proves every use of the map is one an array answers exactly, the map
becomes ``V m_val[256] = {};`` indexed by the key converted to ``unsigned char`` (``bool``
keys: 2 entries, indexed by the key as ``bool``), plus, only where presence shows, a
``bool m_has[256]`` marked by each ``m[k]`` (which inserts even when it reads) and a count of
present keys for ``size()``/``empty()``. A loop over the map runs over the key type's values
from ``std::numeric_limits<K>::min()`` to ``max()`` in an ``int`` (ascending key order, as a
``std::map`` visits them, whether ``char`` is signed or not) and skips absent keys.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from perfpilot.code.facts import FunctionFacts
from perfpilot.code.syntax import (
    Node,
    node_text,
    operator,
    walk,
)
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.containers.small_key_map import (
    Iteration,
    SmallKeyMap,
    integral_expression,
    small_key_maps,
)
from perfpilot.rules.detect.common import cpp, lines_phrase, rng
from perfpilot.rules.edits import Edit
from perfpilot.rules.finding import Finding, Proof, make_finding
from perfpilot.rules.rewrite_input import (
    Left,
    Planned,
    RuleInput,
    newline_of,
)

RULE_ID = "small-key-table"


@dataclass(frozen=True)
class KeyTable(Proof):
    """A map proved to be answered exactly by arrays: its declaration and every use
    (``small_key_map.py`` has the proof)."""

    table: SmallKeyMap


def _uses_phrase(m: SmallKeyMap) -> str:
    forms = {u.form for u in m.lookups}
    ops = ["`[]`"] if "subscript" in forms else []
    ops += [f"`{f}`" for f in ("count", "contains") if f in forms]
    ops += ["`find(k) != end()`"] if forms & {"found", "missing"} else []
    ops += ["`size()`"] if m.sizes else []
    ops += ["`empty()`"] if m.empties else []
    ops += ["range-for loops"] if m.iterations else []
    return ", ".join(ops)


def small_key_table(facts: FunctionFacts) -> Iterator[Finding]:
    """A local map keyed by ``char``/``int8_t``/``bool`` whose every use an array answers."""
    if not cpp(facts):
        return
    maps, _refused = small_key_maps(facts)
    for m in maps:
        slow = ("an O(log n) tree walk" if m.kind == "map" else "hashing into a bucket") + \
            " and a node allocated per new key"
        order = " Loops over it still visit the keys in ascending order." \
            if m.kind == "map" and m.iterations else ""
        yield make_finding(
            RULE_ID,
            f"`{m.name}` (`{node_text(m.decl.child_by_field_name('type'))}`, line "
            f"{m.lines[0]}) is keyed by `{m.key}`, which takes only {m.entries} values, and "
            f"is used only through {_uses_phrase(m)} ({lines_phrase(m.lines[1:])}): an array "
            f"of {m.entries} `{m.value}` indexed by the key as `unsigned char` "
            + ("(with a second array marking which keys are present) " if m.presence else "")
            + f"answers each access with one indexed load instead of {slow}.{order}",
            list(m.lines[:7]), node_range=rng(m.decl), names=[m.name],
            proof=KeyTable(m),
        )


def fix(inp: RuleInput, finding: Finding) -> Planned | Left:
    """The proved map becomes arrays."""
    proof = finding.proof
    assert isinstance(proof, KeyTable)
    return _change(inp, proof.table)


def refused(inp: RuleInput) -> list[str]:
    """Why each small-key map that was not proved stays a map."""
    if inp.language != "cpp":
        return []
    return [f"{RULE_ID}: {r}" for r in small_key_maps(inp.facts, inp.types)[1]]


def _change(inp: RuleInput, m: SmallKeyMap) -> Planned:
    val = inp.fresh_name(f"{m.name}_val")
    has = inp.fresh_name(f"{m.name}_has") if m.presence else ""
    size = inp.fresh_name(f"{m.name}_size") if m.counted else ""
    marks = m.presence and any(u.form == "subscript" for u in m.lookups)
    at = inp.fresh_name(f"{m.name}_at") if marks else ""
    nl = newline_of(inp.text)
    indent = _leading_space(inp.data, m.decl)
    decls = [f"{m.value} {val}[{m.entries}] = {{}};"]
    if has:
        decls.append(f"bool {has}[{m.entries}] = {{}};")
    if size:
        decls.append(f"std::size_t {size} = 0;")
    if at:  # m[k] inserts k even when it only reads: mark it (and count it) on every access
        body = ([f"{size} += !{has}[k];"] if size else []) + \
            [f"{has}[k] = true;", f"return {val}[k];"]
        decls.append(f"auto {at} = [&](unsigned char k) -> {m.value}& {{"
                     + "".join(f"{nl}{indent}    {b}" for b in body) + f"{nl}{indent}}};")
    edits = [Edit(m.decl.start_byte, m.decl.end_byte, (nl + indent).join(decls), RULE_ID)]
    for u in m.lookups:
        pre, post = _index(inp, m, u.key)
        head, tail = {
            "subscript": (f"{at}(" if at else f"{val}[", ")" if at else "]"),
            "count": (f"static_cast<std::size_t>({has}[", "])"),
            "contains": (f"{has}[", "]"),
            "found": (f"({has}[", "])"),
            "missing": (f"(!{has}[", "])"),
        }[u.form]
        edits.append(Edit(u.node.start_byte, u.key.start_byte, head + pre, RULE_ID))
        edits.append(Edit(u.key.end_byte, u.node.end_byte, post + tail, RULE_ID))
    edits += [Edit(s.start_byte, s.end_byte, size, RULE_ID) for s in m.sizes]
    edits += [Edit(e.start_byte, e.end_byte, f"({size} == 0)", RULE_ID) for e in m.empties]
    for it in m.iterations:
        edits += _loop_edits(inp, m, it, val, has, nl)
    includes = (("<limits>",) if m.iterations else ()) + \
        (("<cstddef>",) if size or any(u.form == "count" for u in m.lookups) else ())
    what = "ascending key order kept for its loops" if m.kind == "map" and m.iterations else \
        "its loops only fold integers, in any order" if m.iterations else ""
    return Planned(
        tuple(edits),
        f"'{m.name}' (line {inp.line_of(m.decl)}), a {m.kind} keyed by {m.key}, is now the "
        f"array '{val}' of {m.entries} entries indexed by the key as unsigned char"
        + (f", with '{has}' marking the keys present" if has else "")
        + (f" and '{size}' counting them" if size else "")
        + (f"; {what}" if what else "")
        + ": one indexed load per access instead of "
        + ("a tree walk" if m.kind == "map" else "a hash lookup")
        + " and no node allocation.",
        (m.decl,), includes)


def _leading_space(data: bytes, node: Node) -> str:
    """The indentation of the line ``node`` starts on (even when code precedes it there)."""
    start = data.rfind(b"\n", 0, node.start_byte) + 1
    line_text = data[start:node.start_byte].decode("utf-8")
    return line_text[:len(line_text) - len(line_text.lstrip(" \t"))]


def _index(inp: RuleInput, m: SmallKeyMap, key: Node) -> tuple[str, str]:
    """The text around a key expression that makes it an array index, as ``operator[]``
    would convert it to the key type: a ``bool`` key by ``static_cast<bool>``; a one-byte key
    by ``static_cast<unsigned char>``, through the key type first unless the expression is an
    integer (then both reduce it modulo 256)."""
    if m.entries == 2:
        return ("", "") if _boolean(key, inp) else ("static_cast<bool>(", ")")
    if key.type == "number_literal" and node_text(key).isdigit() and int(node_text(key)) < 256:
        return "", ""  # already its own index
    if integral_expression(key, inp.types, inp.facts):
        return "static_cast<unsigned char>(", ")"
    return f"static_cast<unsigned char>(static_cast<{m.key}>(", "))"


def _boolean(e: Node, inp: RuleInput) -> bool:
    """An expression of type ``bool``: a literal, a comparison or logical operation, a ``bool``
    variable (by its one declared type)."""
    if e.type in ("true", "false"):
        return True
    if e.type == "binary_expression":
        return operator(e) in ("==", "!=", "<", ">", "<=", ">=", "&&", "||")
    if e.type == "unary_expression":
        return operator(e) == "!"
    if e.type == "identifier":
        vt = inp.types.get(node_text(e))
        return vt is not None and vt.base == "bool" and not vt.pointer and not vt.array
    return False


def _loop_edits(inp: RuleInput, m: SmallKeyMap, it: Iteration, val: str, has: str,
                nl: str) -> list[Edit]:
    """The range-for becomes a loop over the key type's values in an ``int``, skipping absent
    keys, with the bound names declared at the top of its body."""
    loop = it.loop
    body = loop.child_by_field_name("body")
    assert body is not None
    k = inp.fresh_name(f"{m.name}_key")
    limits = f"std::numeric_limits<{m.key}>"
    idx = f"static_cast<unsigned char>({k})"
    header = f"for (int {k} = {limits}::min(); {k} <= {limits}::max(); ++{k}) "
    vtype = ("const " if it.const else "") + m.value + ("&" if it.reference else "")
    stmts = [f"if (!{has}[{idx}]) continue;"]
    edits: list[Edit] = []
    if it.pair is not None:
        first = inp.fresh_name(f"{it.pair}_first") if it.firsts else ""
        second = inp.fresh_name(f"{it.pair}_second") if it.seconds else ""
        if first:
            stmts.append(f"const {m.key} {first} = static_cast<{m.key}>({k});")
        if second:
            stmts.append(f"{vtype} {second} = {val}[{idx}];")
        edits += [Edit(f.start_byte, f.end_byte, first, RULE_ID) for f in it.firsts]
        edits += [Edit(s.start_byte, s.end_byte, second, RULE_ID) for s in it.seconds]
    else:
        # a binding the body never reads is not declared (it would be an unused variable)
        used = {node_text(n) for n in walk(body) if n.type == "identifier"}
        if it.key in used:
            stmts.append(f"const {m.key} {it.key} = static_cast<{m.key}>({k});")
        if it.value in used:
            stmts.append(f"{vtype} {it.value} = {val}[{idx}];")
    indent = _leading_space(inp.data, loop)
    inner = indent + "    "
    lead = "".join(f"{nl}{inner}{s}" for s in stmts)
    if body.type == "compound_statement":
        edits.append(Edit(loop.start_byte, body.start_byte, header, RULE_ID))
        edits.append(Edit(body.start_byte + 1, body.start_byte + 1, lead, RULE_ID))
    else:
        edits.append(Edit(loop.start_byte, body.start_byte, header + "{" + lead + nl + inner,
                          RULE_ID))
        edits.append(Edit(body.end_byte, body.end_byte, nl + indent + "}", RULE_ID))
    return edits


RULE = RuleSpec(
    id=RULE_ID,
    detect=small_key_table,
    fix=fix,
    refused=refused,
    rewrites_as=frozenset({RULE_ID}),
    phase=1,
    order=7,
    examples=(
        Example("cpp", """
#include <map>
#include <string>
int most_common(const std::string& s) {
    std::map<char, int> freq;
    for (char c : s) ++freq[c];
    int best = 0;
    for (const auto& [c, n] : freq)
        if (n > best) best = n;
    return best * 1000 + (int)freq.size();
}
""", "most_common"),
        Example("cpp", """
#include <unordered_map>
#include <vector>
#include <cstdint>
long weight(const std::vector<std::uint8_t>& bytes) {
    std::unordered_map<std::uint8_t, long> hist;
    for (std::size_t i = 0; i < bytes.size(); ++i) hist[bytes[i]] += 2;
    return hist[0] + hist[255];
}
""", "weight"),
    ),
)
