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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Differential sweeps (modules built on ``differential_support``) run a sample of their
    variants under ``make test`` and all of them again under ``make test-deep``."""
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
