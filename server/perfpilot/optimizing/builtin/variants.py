"""The variants of a builtin candidate: one family the engine races (``engine/racing.py``).

A rewrite has parameters its rules fix by the shape of the code, while which value is fastest
depends on the data and the machine. Each variant changes one of them and nothing else:

- the OpenMP ``schedule`` and chunk size of a loop with uneven work (``variant_schedule.py``);
- the order of the loops of a perfect 3-deep nest, among the legal orders
  (``variant_order.py``), and the source's own order where the loop-interchange rule swapped
  two loops (the optimizer supplies that one: the same rewrite without the swap);
- ``simd`` on straight-line loops, and ``#pragma GCC unroll`` 4 and 8 on the innermost counted
  loops of a serial candidate (``variant_pragmas.py``).

None of them changes what the function computes (see each module for why). Serial against
parallel stays a choice between separate candidates. A family holds at most ``MAX_FAMILY``
candidates, the candidate itself first; axes earlier in the list above come first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from perfpilot.code.site import FunctionSite
from perfpilot.optimizing.builtin.variant_order import order_variants
from perfpilot.optimizing.builtin.variant_pragmas import (
    UNROLLS,
    parallel_simd,
    serial_simd,
    unrolled,
)
from perfpilot.optimizing.builtin.variant_schedule import schedule_variants
from perfpilot.rules.rewriting import rule_input, site_with_text
from perfpilot.strategy.values import Candidate, Strategy

# Racing makes k variants cheap, not free: a family stays small.
MAX_FAMILY = 6

# The label of the source's own loop order, where the candidate interchanged two loops.
SOURCE_ORDER = "original loop order"
_SIMD_FLAGS = ("-fopenmp", "-fopenmp-simd", "-qopenmp", "-qopenmp-simd")
# Compilers that read ``#pragma GCC unroll`` (GCC 8 and later, Clang, and their drivers).
_UNROLL_COMPILERS = re.compile(r"(?:[\w.]+-)*(gcc|g\+\+|clang|clang\+\+|cc|c\+\+)(-[\d.]+)?")


@dataclass(frozen=True)
class Build:
    """What the project's build makes of the pragmas a variant adds: ``simd``, whether a
    serial build honours ``#pragma omp simd`` (``-fopenmp`` or ``-fopenmp-simd`` in its
    flags); ``unroll``, whether its compiler reads ``#pragma GCC unroll``."""

    simd: bool = False
    unroll: bool = True


# GCC with flags that leave ``omp simd`` out: what a unit without a compile database gets.
DEFAULT_BUILD = Build()


def build_of(flags: Sequence[str], compiler: str | None) -> Build:
    """The ``Build`` of a unit compiled with ``flags`` by ``compiler`` (None: the default
    GCC)."""
    simd = any(f in _SIMD_FLAGS or f.startswith("-fopenmp=") for f in flags)
    unroll = compiler is None or bool(_UNROLL_COMPILERS.fullmatch(Path(compiler).name))
    return Build(simd=simd, unroll=unroll)


@dataclass(frozen=True)
class Variant:
    """One variant: what sets it apart ("schedule(dynamic, 64)", "simd", "unroll 4",
    "order k-i-j"), its function text, and its strategies when they differ from the
    candidate's (the source's loop order carries no interchange)."""

    label: str
    code: str
    strategies: tuple[Strategy, ...] | None = None


@dataclass(frozen=True)
class Family:
    """The candidate's own label and its variants (the candidate itself not among them)."""

    own: str
    variants: tuple[Variant, ...]


def family_of(code: str, site: FunctionSite, parallel: bool, build: Build = DEFAULT_BUILD,
              source_order: Variant | None = None) -> Family:
    """The variants of the candidate ``code`` of ``site`` (``parallel``: it uses OpenMP), at
    most ``MAX_FAMILY - 1``; ``source_order``, when given, is the same rewrite with the
    source's loop order (the optimizer makes it)."""
    # Per parameter: the candidate's own value ("" where it has none to name) and the others.
    axes: list[tuple[str, list[Variant]]] = []
    schedules = schedule_variants(code) if parallel else ()
    if schedules:
        axes.append((schedules[0].label, [Variant(s.label, s.code) for s in schedules[1:]]))
    inp = rule_input(site_with_text(site, code), code)
    if inp is not None:
        order_label, orders = order_variants(inp)
        axes.append((order_label, [Variant(o.label, o.code) for o in orders]))
    if source_order is not None:
        axes.append(("loops interchanged", [source_order]))
    if inp is not None:
        simd = parallel_simd(inp) if parallel else serial_simd(inp) if build.simd else None
        axes.append(("", [Variant("simd", simd)] if simd is not None else []))
        if not parallel and build.unroll:
            axes.append(("", [Variant(f"unroll {k}", u) for k in UNROLLS
                              if (u := unrolled(inp, k)) is not None]))
    seen = {code}
    own: list[str] = []
    kept: list[Variant] = []
    for label, variants in axes:
        fresh = [v for v in variants if v.code not in seen][:MAX_FAMILY - 1 - len(kept)]
        seen |= {v.code for v in fresh}
        kept += fresh
        if fresh and label:
            own.append(label)
    return Family(", ".join(own) or "the plain rewrite", tuple(kept))


def candidate_variants(candidate: Candidate, family: str, site: FunctionSite,
                       build: Build = DEFAULT_BUILD, source_order: Variant | None = None,
                       ) -> tuple[Candidate, ...]:
    """``candidate`` and its variants (``family_of``), all of one ``family`` (raced together),
    each labelled by what sets it apart; just ``candidate`` when it has no variants."""
    found = family_of(candidate.code, site, candidate.needs_openmp, build, source_order)
    if not found.variants:
        return (candidate,)
    first = replace(candidate, family=family, variant=found.own)
    return (first, *(replace(candidate, code=v.code, family=family, variant=v.label,
                             strategies=candidate.strategies if v.strategies is None
                             else v.strategies,
                             notes=(*candidate.notes, f"variant: {v.label} instead of "
                                                      f"{found.own}"))
                     for v in found.variants))
