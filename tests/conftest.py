"""Shared fixtures."""

from __future__ import annotations

import os

# Tests never reach a model hub: everything they load is built locally.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
