"""The text generation interface shared by the local worker client and the remote client."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from perfpilot.progress import JobContext

# One chat message: {"role": "system"|"user"|"assistant", "content": "..."}.
Message = Mapping[str, str]


class TextGenerator(Protocol):
    """Generates chat completions; both backends implement it.

    ``generate`` returns up to ``n`` texts (greedy decoding, ``temperature <= 0``, may return a
    single text since the samples would be identical). Stop strings end a text and are not
    included in it (OpenAI semantics). While streaming it calls
    ``ctx.report("generating", f"{tokens} tokens", None)``; when ``ctx`` is cancelled it stops
    the generation promptly and raises ``perfpilot.progress.Cancelled``. Failures raise
    ``perfpilot.llm.errors.ModelError`` with a user-facing message.
    """

    @property
    def backend(self) -> str:
        """``local`` or ``remote``."""
        ...

    @property
    def model(self) -> str:
        """The model name or path, as configured."""
        ...

    async def generate(
        self,
        messages: Sequence[Message],
        *,
        n: int,
        max_tokens: int,
        temperature: float,
        stop: Sequence[str],
        ctx: JobContext,
    ) -> list[str]:
        """Generate ``n`` completions of the chat ``messages``."""
        ...

    async def close(self) -> None:
        """Release the connection or the worker (shared workers stay with their registry)."""
        ...
