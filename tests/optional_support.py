"""Skipping tests whose optional extras are missing, without importing those extras.

``pytest.importorskip`` at module level imports torch, transformers and trl while pytest
collects, which cost each test process about half a minute; ``find_spec`` only looks them up.
Tests import what they use inside their bodies or fixtures.
"""

from __future__ import annotations

import importlib.util

import pytest


def needs(*modules: str) -> pytest.MarkDecorator:
    """A skip mark for when any of ``modules`` is not installed (strict in CI, conftest.py)."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    return pytest.mark.skipif(bool(missing), reason=f"{', '.join(missing)} not installed")
