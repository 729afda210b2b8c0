"""Content hashes used as cache keys."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

# Keyed per process, so a secret's fingerprint cannot be checked against guesses elsewhere.
_SECRET_SALT = os.urandom(32)


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


def secret_fingerprint(secrets: Mapping[str, str]) -> str:
    """Identifies the values of ``secrets`` (API keys) without holding them in clear: a cache
    keyed by it rebuilds a backend when a key is rotated, and the key never appears in it."""
    mac = hmac.new(_SECRET_SALT, digestmod=hashlib.sha256)
    for name, value in sorted(secrets.items()):
        mac.update(name.encode("utf-8") + b"\0" + value.encode("utf-8") + b"\0")
    return mac.hexdigest()[:32]
