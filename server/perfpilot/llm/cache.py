"""In-memory caches of model outputs, keyed by everything that shapes the output."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from cachetools import LRUCache

DEFAULT_SIZE = 256


def cache_key(*parts: Any) -> str:
    """A stable hash of JSON-able parts (function text, context, backend, model, plan...)."""
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class TextCache:
    """Model texts by key (an LRU; the engine persists results itself)."""

    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        self._data: LRUCache[str, tuple[str, ...]] = LRUCache(maxsize=size)

    def get(self, key: str) -> tuple[str, ...] | None:
        """The texts stored under ``key``, if any."""
        return self._data.get(key)

    def put(self, key: str, texts: tuple[str, ...]) -> None:
        """Store ``texts`` under ``key``."""
        self._data[key] = texts

    def clear(self) -> None:
        """Forget everything."""
        self._data.clear()

    def __len__(self) -> int:
        return len(self._data)
