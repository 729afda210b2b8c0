"""Content hashes used as cache keys."""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any


@cache
def runner_fingerprint() -> str:
    """A hash of the runner's own sources: a changed runner never reuses old verdicts."""
    import perfpilot.runner as runner

    root = Path(runner.__file__).parent
    digest = hashlib.sha256()
    for path in sorted([*root.glob("*.py"), *root.glob("include/*")]):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def content_key(*parts: Any) -> str:
    """A stable SHA-256 hex digest of the JSON encoding of ``parts``."""
    blob = json.dumps(parts, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()
