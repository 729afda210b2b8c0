"""Shared fixtures."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

# Tests never reach a model hub: everything they load is built locally.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

# Build outputs the runner reuses go to a folder of this test session, not the user's cache.
_CACHE = tempfile.mkdtemp(prefix="perfpilot-test-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, True)
