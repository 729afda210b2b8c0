"""Content hashes used as cache keys."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def content_key(*parts: Any) -> str:
    """A stable SHA-256 hex digest of the JSON encoding of ``parts``."""
    blob = json.dumps(parts, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()
