"""Every rule module, imported from its family package, in detection order, and the views the
planner and the optimizer take."""

from __future__ import annotations

from perfpilot.rules.arithmetic import div_by_invariant, mod_wrap, pow2_divmod, pow_strength
from perfpilot.rules.base import RuleSpec
from perfpilot.rules.by_finding import Detector, RewriteFn
from perfpilot.rules.codegen import (
    branchless_select,
    call_in_hot_loop,
    restrict_alias,
    std_algorithm,
)
from perfpilot.rules.containers import (
    const_ref_copy,
    const_ref_param,
    erase_in_loop,
    list_to_vector,
    ordered_map_unneeded,
    reserve,
    small_key_table,
    string_concat_loop,
    substr_compare,
    vector_front_op,
)
from perfpilot.rules.counting import (
    char_set_table,
    count_table,
    cross_pair_count,
    pair_count_sort,
    prefix_sum,
    range_count_query,
    sort_compare_counts,
)
from perfpilot.rules.hoisting import (
    alloc_in_loop,
    hoist_container,
    hoist_invariant_call,
    invariant_branch,
    invariant_expression,
    invariant_inner_loop,
    memo_recursion,
    strlen_condition,
)
from perfpilot.rules.io import endl, fast_io, stdio_loop
from perfpilot.rules.parallel import (
    accumulator_chain,
    loop_interchange,
    openmp,
    simd_elementwise,
    simd_loop,
)
from perfpilot.rules.search import (
    assoc_list_map,
    flag_early_exit,
    linear_search_in_loop,
    seen_list_set,
    sorted_linear_scan,
)
from perfpilot.rules.sorting import (
    manual_sort,
    qsort_to_sort,
    repeated_extraction,
    sort_for_prefix,
    sort_for_selection,
    sorted_insert,
)

# Detection order is the order findings are collected in (ranking then sorts them by impact).
RULE_SPECS: tuple[RuleSpec, ...] = tuple(m.RULE for m in (
    invariant_inner_loop, sorted_linear_scan, seen_list_set, assoc_list_map,
    linear_search_in_loop, memo_recursion,
    manual_sort, pair_count_sort, count_table, cross_pair_count, range_count_query,
    prefix_sum, sort_for_selection, sort_for_prefix,
    sort_compare_counts, repeated_extraction, sorted_insert,
    openmp, loop_interchange,
    hoist_invariant_call, strlen_condition, flag_early_exit, invariant_expression,
    invariant_branch,
    branchless_select, small_key_table, ordered_map_unneeded, list_to_vector, vector_front_op,
    erase_in_loop,
    reserve, string_concat_loop, substr_compare, alloc_in_loop, const_ref_copy,
    hoist_container, endl, fast_io,
    stdio_loop,
    pow_strength, div_by_invariant, pow2_divmod, mod_wrap, const_ref_param, call_in_hot_loop,
    restrict_alias, simd_loop, simd_elementwise, accumulator_chain, std_algorithm,
    qsort_to_sort, char_set_table,
))

Phase = tuple[tuple[frozenset[str], RewriteFn], ...]


def detectors() -> tuple[tuple[str, Detector], ...]:
    """``(rule id, detect)`` of every rule, in detection order."""
    return tuple((spec.id, spec.detect) for spec in RULE_SPECS)


def rewrite_phases() -> tuple[Phase, ...]:
    """The rewrites grouped into phases, each ``(ids its changes carry, rewrite)`` in order.

    Two rules may share one rewrite (a ``strlen`` condition is fixed by the invariant-call
    hoist); it runs once, at the place of the first rule that names it.
    """
    seen: dict[RewriteFn, RuleSpec] = {}
    for spec in sorted((s for s in RULE_SPECS if s.rewrite is not None),
                       key=lambda s: (s.phase, s.order)):
        assert spec.rewrite is not None
        seen.setdefault(spec.rewrite, spec)
    phases: dict[int, list[tuple[frozenset[str], RewriteFn]]] = {}
    for fn, spec in seen.items():
        phases.setdefault(spec.phase, []).append((spec.rewrites_as, fn))
    return tuple(tuple(phases[p]) for p in sorted(phases))


# Rules whose rewrites may change a floating result in its last bit (a division turned into a
# multiplication by a reciprocal, a sum split into partial sums): they run only for a plan
# that names them, whose explanation says so; never by default.
LAST_BIT: frozenset[str] = frozenset({div_by_invariant.RULE_ID, accumulator_chain.RULE_ID})


def last_bit_phases() -> tuple[Phase, ...]:
    """The last-bit rewrites (``LAST_BIT``), as extra phases for the rewriter, each enabled
    only by its own rule id. The reciprocal comes first: the sum split then sees its product."""
    return (((frozenset({div_by_invariant.RULE_ID}), div_by_invariant.reciprocal_rewrite),),
            ((frozenset({accumulator_chain.RULE_ID}), accumulator_chain.split_rewrite),))


def rule_spec(rule_id: str) -> RuleSpec | None:
    """The spec whose detection reports findings of ``rule_id``."""
    return next((s for s in RULE_SPECS if rule_id in s.finding_ids), None)
