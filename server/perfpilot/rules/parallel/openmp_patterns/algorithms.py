"""Whole-container standard algorithm calls as OpenMP loops over the container's indices:
``std::transform`` with a pure function, integer ``std::accumulate``/``std::reduce``, and
``std::count``/``std::count_if`` with a pure predicate (see ``code/std_calls.py``)."""

from __future__ import annotations

from perfpilot.code.std_calls import AlgorithmCall
from perfpilot.rules.edits import Edit
from perfpilot.rules.rewrite_input import Change, RuleInput, newline_of


def rule_of(call: AlgorithmCall) -> str:
    """The rule id the call's finding and change carry."""
    return "openmp-for" if call.kind == "transform" else "openmp-reduction"


def describe(call: AlgorithmCall) -> str:
    """The pattern in words (Markdown code spans)."""
    if call.kind == "transform":
        how = (f"each element of `{call.target}` is computed from the same element of "
               f"`{call.source}` by a function without side effects, so the elements can be "
               "computed on all cores")
    elif call.kind in ("find", "find_if"):
        how = (f"a search for the first matching element of `{call.source}`; the threads "
               "test their shares in parallel, skip elements past the earliest match known, and "
               "the earliest match wins (the end iterator when none matches), as in the serial "
               "search")
    elif call.kind in ("accumulate", "reduce"):
        how = (f"an integer sum of `{call.source}`, which a `reduction(+:...)` computes on all "
               "cores with exactly the serial result (integer addition does not depend on the "
               "order)")
    else:
        how = (f"a count over `{call.source}`, which a `reduction(+:...)` computes on all cores "
               "with exactly the serial result")
    return (f"the standard algorithm `std::{call.kind}` over all of `{call.source}`: {how}; "
            "as an OpenMP loop over its indices it runs in parallel (`std::execution::par` runs "
            "serially with libstdc++ unless TBB is installed and linked)")


def algorithm_change(inp: RuleInput, call: AlgorithmCall) -> Change:
    """The call rewritten as a ``parallel for`` over the container's indices."""
    data, nl = inp.data, newline_of(inp.text)
    s_start, s_end = call.statement
    line_start = data.rfind(b"\n", 0, s_start) + 1
    indent = data[line_start:s_start].decode("utf-8")
    if indent.strip():
        indent = ""
    rule = rule_of(call)
    k = inp.fresh_name("k")
    x = call.source
    edits: tuple[Edit, ...]
    head = f"for (std::size_t {k} = 0; {k} < {x}.size(); ++{k}) {{"
    if call.kind == "transform":
        lines = ["{", "    #pragma omp parallel for", f"    {head}",
                 f"        {call.target}[{k}] = ({call.functor})({x}[{k}]);", "    }", "}"]
        text = f"{nl}{indent}".join(lines)
        edits = (Edit(s_start, s_end, text, rule),)
    elif call.kind in ("find", "find_if"):
        found, stop = inp.fresh_name(f"{x}_found"), inp.fresh_name(f"{x}_stop")
        seen = inp.fresh_name(f"{x}_seen")
        test = (f"({call.functor})({x}[{k}])" if call.kind == "find_if"
                else f"{x}[{k}] == {call.init}")
        lines = [f"std::size_t {found} = {x}.size();", "{",
                 f"    long long {stop} = 9223372036854775807LL;",
                 "    #pragma omp parallel for schedule(static)", f"    {head}",
                 f"        long long {seen};", "        #pragma omp atomic read",
                 f"        {seen} = {stop};",
                 f"        if (static_cast<long long>({k}) > {seen}) continue;",
                 f"        if ({test}) {{", "            #pragma omp critical",
                 f"            if ({k} < {found}) {{", f"                {found} = {k};",
                 "                #pragma omp atomic write",
                 f"                {stop} = static_cast<long long>({k});", "            }",
                 "        }", "    }", "}"]
        prelude = "".join(f"{indent}{t}{nl}" for t in lines)
        edits = (Edit(line_start, line_start, prelude, rule, order=9),
                 Edit(call.call[0], call.call[1], f"({call.begin}) + {found}", rule))
    else:
        acc = inp.fresh_name(f"{x}_{'sum' if call.kind in ('accumulate', 'reduce') else 'count'}")
        if call.kind in ("accumulate", "reduce"):
            decl = f"auto {acc} = {call.init};" if call.init else f"{call.element} {acc}{{}};"
            step = f"{acc} += {x}[{k}];"
        elif call.kind == "count_if":
            decl = f"std::ptrdiff_t {acc} = 0;"
            step = f"if (({call.functor})({x}[{k}])) ++{acc};"
        else:
            decl = f"std::ptrdiff_t {acc} = 0;"
            step = f"if ({x}[{k}] == {call.init}) ++{acc};"
        lines = [decl, f"#pragma omp parallel for reduction(+:{acc})", head, f"    {step}", "}"]
        prelude = "".join(f"{indent}{t}{nl}" for t in lines)
        edits = (Edit(line_start, line_start, prelude, rule, order=9),
                 Edit(call.call[0], call.call[1], acc, rule))
    explanation = "At line {}, {}.".format(call.line, describe(call).replace("`", "'"))
    return Change(rule, edits, explanation, (call.line,), ("<cstddef>",))
