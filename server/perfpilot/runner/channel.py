"""The driver's result channel: a pipe of its own, every line tagged under a per-run key.

The code under test runs inside the driver process and can print whatever it likes on stdout
and stderr. The driver therefore reports on a separate descriptor, and tags each line with
SipHash-2-4 under a 128-bit key the runner writes to the driver's stdin before any library is
loaded. A line whose tag does not verify is a forgery attempt, never a result.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any

_MASK = (1 << 64) - 1


def _rotl(x: int, b: int) -> int:
    return ((x << b) | (x >> (64 - b))) & _MASK


def siphash24(k0: int, k1: int, data: bytes) -> int:
    """SipHash-2-4 of ``data`` under the key (k0, k1), as the driver computes it."""
    v0, v1 = 0x736F6D6570736575 ^ k0, 0x646F72616E646F6D ^ k1
    v2, v3 = 0x6C7967656E657261 ^ k0, 0x7465646279746573 ^ k1

    def rounds(n: int) -> None:
        nonlocal v0, v1, v2, v3
        for _ in range(n):
            v0 = (v0 + v1) & _MASK
            v1 = _rotl(v1, 13) ^ v0
            v0 = _rotl(v0, 32)
            v2 = (v2 + v3) & _MASK
            v3 = _rotl(v3, 16) ^ v2
            v0 = (v0 + v3) & _MASK
            v3 = _rotl(v3, 21) ^ v0
            v2 = (v2 + v1) & _MASK
            v1 = _rotl(v1, 17) ^ v2
            v2 = _rotl(v2, 32)

    full = len(data) - len(data) % 8
    for i in range(0, full, 8):
        w = int.from_bytes(data[i:i + 8], "little")
        v3 ^= w
        rounds(2)
        v0 ^= w
    last = ((len(data) & 0xFF) << 56) | int.from_bytes(data[full:], "little")
    v3 ^= last
    rounds(2)
    v0 ^= last
    v2 ^= 0xFF
    rounds(4)
    return (v0 ^ v1 ^ v2 ^ v3) & _MASK


@dataclass(frozen=True)
class ChannelKey:
    """One run's key: written once to the driver's stdin, then used to check every line."""

    k0: int
    k1: int

    @classmethod
    def fresh(cls) -> ChannelKey:
        """A new random key."""
        return cls(secrets.randbits(64), secrets.randbits(64))

    def handshake(self) -> bytes:
        """The 32 hex digits the driver reads from stdin."""
        return f"{self.k0:016x}{self.k1:016x}".encode()

    def tag(self, body: str) -> str:
        """The tag of one event line (without its ``mac`` member)."""
        return f"{siphash24(self.k0, self.k1, body.encode()):016x}"


@dataclass(frozen=True)
class Events:
    """The verified events of one run, and how many lines failed verification."""

    events: tuple[dict[str, Any], ...]
    forged: int


def read_events(text: str, key: ChannelKey | None) -> Events:
    """Parse event lines; with a key, keep only lines whose tag verifies.

    The driver appends ``,"mac":"<16 hex>"`` before the closing brace of each line it emits,
    so the tagged body is the line with that suffix removed.
    """
    out: list[dict[str, Any]] = []
    forged = 0
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if key is not None:
            cut = line.rfind(',"mac":"')
            if cut < 0 or not line.endswith('"}') or len(line) - cut != len(',"mac":"') + 18:
                forged += 1
                continue
            body = line[:cut] + "}"
            if not secrets.compare_digest(line[cut + 8:cut + 24], key.tag(body)):
                forged += 1
                continue
            line = body
        elif not line.startswith('{"event"'):
            continue
        try:
            value = json.loads(line)
        except ValueError:
            forged += 1 if key is not None else 0
            continue
        if isinstance(value, dict):
            out.append(value)
    return Events(tuple(out), forged)
