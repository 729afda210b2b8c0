"""The list-to-vector rule: a local ``std::list`` used only as a sequence appended at the back."""

from __future__ import annotations

import re
from collections.abc import Iterator

from perfpilot.code.facts import FunctionFacts
from perfpilot.rules.base import Example, RuleSpec
from perfpilot.rules.detect.common import cpp, lines_phrase
from perfpilot.rules.detect.containers import container_uses, local_containers
from perfpilot.rules.finding import Finding, make_finding

_LIST = re.compile(r"^(?:std::)?list\s*<")


_LIST_OK = frozenset({
    "push_back", "emplace_back", "pop_back", "back", "front", "size", "empty", "clear",
    "begin", "end", "cbegin", "cend", "rbegin", "rend", "sort", "reverse",
})


def list_to_vector(facts: FunctionFacts) -> Iterator[Finding]:
    """A local ``std::list`` used only as a sequence appended at the back."""
    if not cpp(facts):
        return
    for v in local_containers(facts, _LIST):
        use = container_uses(facts, v.name)
        if use.escapes or not use.methods or not use.methods <= _LIST_OK:
            continue
        where = lines_phrase(use.lines)
        yield make_finding(
            "list-to-vector",
            f"`{v.name}` (`{v.base}`, line {v.line}) is only appended to and traversed "
            f"({', '.join(f'`{m}`' for m in sorted(use.methods))}, {where}); a "
            f"`std::list` allocates a node per element and every traversal chases pointers, "
            f"while `std::vector` keeps the elements contiguous"
            + (f" (sort it with `std::sort({v.name}.begin(), {v.name}.end())`)"
               if "sort" in use.methods else "") + ".",
            [v.line, *sorted(set(use.lines))[:6]],
            names=[v.name],
        )


RULE = RuleSpec(
    id="list-to-vector",
    detect=list_to_vector,
    examples=(
        Example("cpp", """
#include <list>
double total(int n) {
    std::list<double> xs;
    for (int i = 0; i < n; ++i) xs.push_back(i * 0.5);
    double s = 0;
    for (double x : xs) s += x;
    return s;
}
""", "total"),
    ),
)
