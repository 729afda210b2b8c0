"""Shared fixtures."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator

import pytest

# Tests never reach a model hub: everything they load is built locally.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

# Build outputs the runner reuses go to a folder of this test session, not the user's cache.
_CACHE = tempfile.mkdtemp(prefix="perfpilot-test-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, True)


# CI installs every tool the tests use (.ci/run): there a test skipped because a tool "is not
# installed" is a broken setup, not an optional feature, and fails.
_STRICT_TOOLS = os.environ.get("PERFPILOT_STRICT_TOOLS") == "1"


# The files that take longest (summed test durations, measured), longest first. The Makefile
# runs pytest-xdist with whole files to one worker, in collection order
# (``--no-loadscope-reorder``): starting with these, the short files fill the gaps at the end
# and neither worker sits idle while the other finishes a long file.
LONGEST_FIRST = (
    "test_runner_measure.py", "test_hostile_candidates.py", "test_verification.py",
    "test_runner_harness.py", "test_eval_e2e.py", "test_harness_feeds.py",
    "test_engine_racing.py", "test_lsp_measured.py", "test_hostile_end_to_end.py",
    "test_training_trl.py", "test_verification_corpus.py", "test_runner_sandbox.py",
    "test_scan.py", "test_lsp_models.py", "test_cli.py", "test_lsp_cancel.py",
    "test_llm_local.py", "test_rule_sorted_algorithm_calls.py", "test_lsp_build_flags.py",
    "test_rules.py", "test_lsp_hostile.py", "test_lsp_e2e.py", "test_profiling.py",
    "test_rule_openmp_row_updates.py", "test_front_consume_prefix.py",
    "test_rule_assoc_list_map.py", "test_llm_planner_e2e.py", "test_lsp_profile.py",
    "test_rule_repeated_extraction.py", "test_model_path_e2e.py", "test_engine_cache.py",
    "test_training_dist.py", "test_bundled_candidates.py", "test_lsp_lens_stage.py",
    "test_rule_prefix_sum.py", "test_rule_openmp_parallel_patterns.py", "test_training_recipe.py",
    "test_rule_sort_for_prefix.py", "test_lsp_restart.py", "test_neovim_client.py",
    "test_eval_replay.py",
)


def _file_rank(item: pytest.Item) -> int:
    name = item.path.name
    return LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The longest files first (``LONGEST_FIRST``; a stable sort keeps the order within a file
    and among the rest). Differential sweeps (modules built on ``differential_support``) run a
    sample of their variants under ``make test`` and all of them again under ``make
    test-deep``."""
    items.sort(key=_file_rank)
    for item in items:
        module = getattr(item, "module", None)
        if module is not None and any(getattr(v, "__module__", "") == "differential_support"
                                      for v in vars(module).values()):
            item.add_marker(pytest.mark.sweep)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    if _STRICT_TOOLS and report.skipped and isinstance(report.longrepr, tuple):
        reason = str(report.longrepr[2])
        if "not installed" in reason:
            report.outcome = "failed"
            report.longrepr = f"a tool CI installs is missing ({reason})"
