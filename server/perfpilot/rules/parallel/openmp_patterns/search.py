"""First-match searches in parallel: every thread tests its own contiguous share of the indices
in order, the earliest match found so far is shared so that later indices are skipped, and the
exit branch runs once after the loop for the earliest match (see ``code/first_match.py``)."""

from __future__ import annotations

import re
from dataclasses import replace

from perfpilot.code.first_match import FirstMatch
from perfpilot.code.loops import LoopFacts
from perfpilot.rules.edits import Edit
from perfpilot.rules.rewrite_input import Change, Node, RuleInput, line_indent, newline_of

RULE = "openmp-reduction"


def describe(fm: FirstMatch) -> str:
    """The pattern in words (Markdown code spans)."""
    ends = "returns" if fm.exit == "return" else "leaves the loop"
    first = "lowest" if fm.ascending else "highest"
    return (f"an early-exit search: it {ends} at the first `{fm.var}` whose condition holds, "
            "and the condition has no side effect; the threads test their shares of the "
            f"indices in parallel and keep the {first} match (a `min`/`max` reduction, with "
            "later indices skipped once a match is known), then the exit branch runs once for "
            "it, exactly as in the serial loop, including when nothing matches")


def search_change(inp: RuleInput, lp: LoopFacts, node: Node, fm: FirstMatch) -> Change:
    """The loop replaced by a parallel search and the exit branch run for its result."""
    data, nl = inp.data, newline_of(inp.text)
    _, indent = line_indent(data, node)
    names = {k: inp.fresh_name(f"{fm.var}_{k}") for k in ("hit", "at", "stop", "seen")}
    inp = replace(inp, taken=inp.taken | set(names.values()))
    hit, at, stop, seen = names["hit"], names["at"], names["stop"], names["seen"]
    header = data[fm.header[0]:fm.header[1]].decode("utf-8").rstrip()
    cond = data[fm.condition[0]:fm.condition[1]].decode("utf-8")
    branch = [data[s:e].decode("utf-8") for s, e in fm.branch]
    # the extreme long long values, written out so that no header is needed
    later, sentinel = ((">", "9223372036854775807LL") if fm.ascending
                       else ("<", "(-9223372036854775807LL - 1)"))
    earlier = "<" if fm.ascending else ">"
    v = fm.var
    lines = [
        "{",
        f"    bool {hit} = false;",
        f"    {fm.var_type} {at}{{}};",
        f"    long long {stop} = {sentinel};",
        "    #pragma omp parallel for schedule(static)",
        f"    {header} {{",
        f"        long long {seen};",
        "        #pragma omp atomic read",
        f"        {seen} = {stop};",
        f"        if (static_cast<long long>({v}) {later} {seen}) continue;",
        f"        if ({cond}) {{",
        "            #pragma omp critical",
        "            {",
        f"                if (!{hit} || {v} {earlier} {at}) {{",
        f"                    {hit} = true;",
        f"                    {at} = {v};",
        "                    #pragma omp atomic write",
        f"                    {stop} = static_cast<long long>({v});",
        "                }",
        "            }",
        "        }",
        "    }",
        f"    if ({hit}) {{",
        # the branch sees the index it matched at, when it uses it (else: unused variable)
        *([f"        {fm.var_type} {v} = {at};"]
          if any(re.search(rf"\b{re.escape(v)}\b", b) for b in branch) else []),
        *(f"        {b}" for b in branch),
        "    }",
        "}",
    ]
    text = f"{nl}{indent}".join(lines)
    explanation = (f"The loop over '{v}' at line {lp.line} is "
                   f"{describe(fm).replace('`', chr(39))}.")
    return Change(RULE, (Edit(node.start_byte, node.end_byte, text, RULE),), explanation,
                  (lp.line,))
