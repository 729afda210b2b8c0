"""Errors from model backends, each carrying one sentence meant for the user."""

from __future__ import annotations


class ModelError(Exception):
    """A model backend failed; ``str(error)`` is a message the user can act on.

    ``kind`` is a short machine-readable word (``not-found``, ``format``, ``out-of-memory``,
    ``missing-dependency``, ``worker-crashed``, ``connection``, ``auth``, ``unknown-model``,
    ``rate-limited``, ``timeout``, ``server``, ``protocol``, ``bad-request``) for callers that
    branch on the cause.
    """

    def __init__(self, message: str, kind: str = "error", role: str = "") -> None:
        super().__init__(f"{role}: {message}" if role else message)
        self.kind = kind
        self.role = role

    @property
    def message(self) -> str:
        """The user-facing message."""
        return str(self)


class LocalModelError(ModelError):
    """The local transformers backend failed (missing file, wrong format, out of memory...)."""


class EndpointError(ModelError):
    """The remote OpenAI-compatible endpoint failed (refused, 401, unknown model, 429...)."""


def for_role(exc: ModelError, role: str) -> ModelError:
    """The same error, its message naming the role (``planner`` or ``optimizer``) that failed;
    an error that already names one is returned as it is."""
    if exc.role:
        return exc
    named = type(exc)(str(exc), exc.kind, role)
    named.__cause__ = exc.__cause__
    return named
