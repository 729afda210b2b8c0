"""What a job asked of models: requests, the tokens the endpoint reported, and the time spent
waiting for answers.

A backend records each answered request on the ``UsageMeter`` its ``JobContext`` carries (none:
nothing is counted). Tokens are only what the endpoint said in its ``usage``: a request whose
answer carried none is counted as a request with unknown tokens, never as zero.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ModelUsage:
    """A sum of model requests. ``reported`` of the ``requests`` carried usage; the token
    counts are over those. ``seconds``: the time at least one request was in flight."""

    requests: int = 0
    reported: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0

    def __add__(self, other: ModelUsage) -> ModelUsage:
        return ModelUsage(self.requests + other.requests, self.reported + other.reported,
                          self.prompt_tokens + other.prompt_tokens,
                          self.completion_tokens + other.completion_tokens,
                          round(self.seconds + other.seconds, 3))

    @property
    def tokens_known(self) -> bool:
        """Whether every request's tokens were reported (and there was one)."""
        return self.requests > 0 and self.reported == self.requests

    def tokens(self) -> str:
        """``120 prompt + 45 completion tokens``, qualified when some requests reported no
        usage, ``tokens unknown`` when none did."""
        if self.reported == 0:
            return "tokens unknown (the endpoint reported no usage)"
        counts = f"{self.prompt_tokens} prompt + {self.completion_tokens} completion tokens"
        if self.reported < self.requests:
            missing = self.requests - self.reported
            return f"{counts} in the {self.reported} request(s) that reported usage " \
                   f"({missing} did not)"
        return counts

    def phrase(self) -> str:
        """``model: 3 requests, 120 prompt + 45 completion tokens, 4.2 s``."""
        return f"model: {self.requests} request(s), {self.tokens()}, {self.seconds:.1f} s"

    def to_json(self) -> dict[str, Any]:
        """A plain JSON-able dict; token counts are null when no request reported them."""
        known = self.reported > 0
        return {"requests": self.requests, "reported": self.reported,
                "prompt_tokens": self.prompt_tokens if known else None,
                "completion_tokens": self.completion_tokens if known else None,
                "seconds": round(self.seconds, 3)}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> ModelUsage:
        """The inverse of ``to_json`` (nothing: no requests)."""
        if not data:
            return cls()
        return cls(int(data.get("requests", 0)), int(data.get("reported", 0)),
                   int(data.get("prompt_tokens") or 0), int(data.get("completion_tokens") or 0),
                   float(data.get("seconds", 0.0)))


NO_USAGE = ModelUsage()


class UsageMeter:
    """Adds up one job's requests as backends report them. Time counts while at least one
    request is in flight, so concurrent samples are not counted twice."""

    def __init__(self) -> None:
        self._usage = ModelUsage()
        self._in_flight = 0
        self._since = 0.0
        self._seconds = 0.0

    def begin(self) -> None:
        """A request (or a batch of samples) starts."""
        if self._in_flight == 0:
            self._since = time.monotonic()
        self._in_flight += 1

    def end(self) -> None:
        """The request that ``begin`` announced is over (answered or not)."""
        self._in_flight = max(0, self._in_flight - 1)
        if self._in_flight == 0:
            self._seconds += time.monotonic() - self._since

    def record(self, prompt_tokens: int | None, completion_tokens: int | None) -> None:
        """One answered request, with the usage its answer carried (None: none)."""
        if prompt_tokens is None or completion_tokens is None:
            self._usage = self._usage + ModelUsage(1)
        else:
            self._usage = self._usage + ModelUsage(1, 1, prompt_tokens, completion_tokens)

    def total(self) -> ModelUsage:
        """What was recorded so far, with the time in flight (a request still running counts
        up to now)."""
        seconds = self._seconds
        if self._in_flight:
            seconds += time.monotonic() - self._since
        u = self._usage
        return ModelUsage(u.requests, u.reported, u.prompt_tokens, u.completion_tokens,
                          round(seconds, 3))
