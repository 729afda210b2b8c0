"""The 15 canonical optimization categories, named exactly as PerfCoder names them."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Category:
    """One of the 15 strategy categories."""

    id: int
    name: str
    description: str


CATEGORIES: tuple[Category, ...] = (
    Category(1, "Algorithm Design Optimization",
             "Replace the algorithm with one of lower complexity or less redundant work."),
    Category(2, "Data Structure Selection",
             "Pick containers whose operations match the access pattern (hash, contiguous, heap)."),
    Category(3, "Memory Usage and Allocation",
             "Avoid repeated allocation and copying; reserve, reuse and move."),
    Category(4, "Loop Efficiency Techniques",
             "Hoist invariant work, fuse, unroll, interchange or exit loops early."),
    Category(5, "Compiler Configuration and Tuning",
             "Flags, attributes and hints that let the compiler generate better code."),
    Category(6, "Multithreading and Concurrency",
             "Run independent iterations or tasks in parallel (OpenMP, threads)."),
    Category(7, "Data Locality and Cache Awareness",
             "Traverse memory in storage order, block for cache, keep hot data contiguous."),
    Category(8, "Input/Output Throughput Optimization",
             "Buffer and batch I/O; avoid flushing and synchronized streams in loops."),
    Category(9, "Instruction-Level Execution Optimization",
             "Cheaper instructions: strength reduction, vectorizable code, fewer dependencies."),
    Category(10, "Function Call Overhead Reduction",
             "Avoid redundant calls, copies at call boundaries and non-inlinable indirection."),
    Category(11, "Branching Efficiency",
             "Remove unpredictable or invariant branches from hot paths."),
    Category(12, "Numerical Computation Optimization",
             "Cheaper arithmetic: avoid pow/sqrt/division where exact alternatives exist."),
    Category(13, "Hardware-Aware System Optimization",
             "Use vector units, alignment and hardware features deliberately."),
    Category(14, "Resource Lifetime and Scope Management",
             "Construct objects once outside loops; narrow scopes; avoid needless temporaries."),
    Category(15, "Efficient Library and API Utilization",
             "Use standard algorithms and library calls that do the job better."),
)

_BY_ID = {c.id: c for c in CATEGORIES}
_BY_KEY: dict[str, Category] = {}


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


for _c in CATEGORIES:
    _BY_KEY[_key(_c.name)] = _c


def category_by_id(cid: int) -> Category:
    """Return the category with id ``cid`` (1-15); raises KeyError otherwise."""
    return _BY_ID[cid]


def match_category(text: str, cutoff: float = 0.8) -> Category | None:
    """Map a category name with small spelling drift to the canonical category.

    Accepts the exact name, case and punctuation variants, a leading id ("6. Multithreading ..."),
    and near misses ("Loop Effeciency Technique"). Returns None when nothing is close enough.
    """
    key = _key(text)
    m = re.match(r"^(\d{1,2})(?:\s+(.*))?$", key)
    if m and int(m.group(1)) in _BY_ID:
        cat = _BY_ID[int(m.group(1))]
        rest = m.group(2) or ""
        if not rest or difflib.SequenceMatcher(None, rest, _key(cat.name)).ratio() >= 0.6:
            return cat
        key = rest
    if key in _BY_KEY:
        return _BY_KEY[key]
    # A leading part of one name ("Numerical Computation") is unambiguous enough.
    prefixed = [c for k, c in _BY_KEY.items() if len(key.split()) >= 2 and k.startswith(key)]
    if len(prefixed) == 1:
        return prefixed[0]
    close = difflib.get_close_matches(key, list(_BY_KEY), n=1, cutoff=cutoff)
    return _BY_KEY[close[0]] if close else None
