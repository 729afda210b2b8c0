"""Integer prefix sums in parallel: the range is cut into blocks; a first parallel pass sums
each block, the offsets of the blocks follow serially, and a second parallel pass runs the
original body over each block from its offset (see ``scan.py``)."""

from __future__ import annotations

from dataclasses import replace

from perfpilot.code.loops import LoopFacts
from perfpilot.rules.edits import Edit
from perfpilot.rules.parallel.scan import Scan
from perfpilot.rules.rewrite_input import Change, Node, RuleInput, line_indent, newline_of

RULE = "openmp-reduction"

# Blocks of the range: enough to share the work among the cores of a large machine, few enough
# that the serial pass over the block offsets costs nothing.
BLOCKS = 64


def describe(sc: Scan) -> str:
    """The pattern in words (Markdown code spans)."""
    return (f"a prefix sum (scan): each `{sc.out}[{sc.var}]` receives the running integer sum "
            f"`{sc.acc}`; a two-pass scan (block sums in parallel, block offsets in order, then "
            "each block again from its offset in parallel) gives exactly the serial result, "
            "since integer addition is associative")


def scan_change(inp: RuleInput, lp: LoopFacts, node: Node, sc: Scan) -> Change:
    """The loop replaced by a two-pass blocked scan."""
    data, nl = inp.data, newline_of(inp.text)
    _, indent = line_indent(data, node)
    keys = ("first", "last", "count", "part", "run", "block", "from", "to", "sum", "k")
    names = {k: inp.fresh_name(f"{sc.acc}_{k}") for k in keys}
    inp = replace(inp, taken=inp.taken | set(names.values()))
    first, count, part, run = names["first"], names["count"], names["part"], names["run"]
    b, lo, hi, t, k = names["block"], names["from"], names["to"], names["sum"], names["k"]
    body = node.child_by_field_name("body")
    assert body is not None
    # the original body over one block, with the running sum renamed to the block's own
    edits = sorted(sc.acc_uses, reverse=True)
    text = data[body.start_byte:body.end_byte]
    for s, e in edits:
        text = text[:s - body.start_byte] + t.encode() + text[e - body.start_byte:]
    block_body = text.decode("utf-8")
    term = data[sc.term[0]:sc.term[1]].decode("utf-8")
    v, vt, at = sc.var, sc.var_type, sc.acc_type
    plus = " + 1" if sc.inclusive_bound else ""
    bounds = [f"        const {vt} {lo} = static_cast<{vt}>({first} + {count} * {b} / {BLOCKS});",
              f"        const {vt} {hi} = static_cast<{vt}>({first} + {count} * ({b} + 1) / "
              f"{BLOCKS});"]
    lines = [
        "{",
        f"    const {vt} {first} = {sc.lower};",
        f"    const {vt} {names['last']} = {sc.upper};",
        f"    const long long {count} = {names['last']} {'>=' if plus else '>'} {first} ? "
        f"static_cast<long long>({names['last']}) - static_cast<long long>({first}){plus} : 0;",
        f"    {at} {part}[{BLOCKS}];",
        "    #pragma omp parallel for",
        f"    for (int {b} = 0; {b} < {BLOCKS}; ++{b}) {{",
        *bounds,
        f"        {at} {t}{{}};",
        f"        for ({vt} {v} = {lo}; {v} < {hi}; ++{v}) {{",
        f"            {t} += {term};",
        "        }",
        f"        {part}[{b}] = {t};",
        "    }",
        f"    {at} {run} = {sc.acc};",
        f"    for (int {k} = 0; {k} < {BLOCKS}; ++{k}) {{",
        f"        const {at} {t} = {part}[{k}];",
        f"        {part}[{k}] = {run};",
        f"        {run} += {t};",
        "    }",
        "    #pragma omp parallel for",
        f"    for (int {b} = 0; {b} < {BLOCKS}; ++{b}) {{",
        *bounds,
        f"        {at} {t} = {part}[{b}];",
        f"        for ({vt} {v} = {lo}; {v} < {hi}; ++{v}) {block_body}",
        "    }",
        f"    {sc.acc} = {run};",
        "}",
    ]
    out = f"{nl}{indent}".join(lines)
    explanation = (f"The loop over '{v}' at line {lp.line} is "
                   f"{describe(sc).replace('`', chr(39))}.")
    return Change(RULE, (Edit(node.start_byte, node.end_byte, out, RULE),), explanation,
                  (lp.line,))
