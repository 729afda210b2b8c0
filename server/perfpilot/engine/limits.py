"""Bounds on the functions the analysers take, so no input holds the process for long.

The built-in planner and rewriter walk the syntax tree and run tree-sitter queries; a query
holds the GIL for its whole run, so running it in a thread does not keep the server
responsive. Measured: a function of 50,000 nested ``if`` statements kept one query busy for
30 s, while 16,000 took 0.1 s (the cost jumps once the query's capture buffers overflow). No
hand-written function comes near these bounds; generated code that does is refused with a
message instead of freezing every other request.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfpilot.code.parse import parse
from perfpilot.code.site import FunctionSite
from perfpilot.code.syntax import (
    tree_shape,
)

# Clang refuses bracket nesting beyond 256 by default; one nesting level is two or three
# tree levels (statement, block, expression), so this admits everything Clang compiles.
MAX_SYNTAX_DEPTH = 1_000
# About 20,000 lines of dense code; the built-in analysis of this many nodes takes ~0.5 s.
MAX_SYNTAX_NODES = 200_000


class AnalysisLimitError(Exception):
    """The function is too large or too deeply nested to analyse; the message says which."""


@dataclass(frozen=True)
class AnalysisLimits:
    """The largest function shape the analysers accept."""

    max_depth: int = MAX_SYNTAX_DEPTH
    max_nodes: int = MAX_SYNTAX_NODES


def check_analysable(site: FunctionSite, limits: AnalysisLimits = AnalysisLimits()) -> None:
    """Raise AnalysisLimitError when ``site`` is deeper or larger than ``limits`` allow."""
    tree = parse(site.text, site.language)
    depth, nodes = tree_shape(tree.root_node, limits.max_depth, limits.max_nodes)
    if depth > limits.max_depth:
        raise AnalysisLimitError(
            f"'{site.name}' nests more than {limits.max_depth} syntax levels deep; PerfPilot "
            "does not analyse functions this deeply nested")
    if nodes > limits.max_nodes:
        raise AnalysisLimitError(
            f"'{site.name}' has more than {limits.max_nodes:,} syntax nodes; PerfPilot does "
            "not analyse functions this large (split it, or optimize a smaller function)")
