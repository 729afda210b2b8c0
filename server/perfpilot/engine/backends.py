"""Builds planners and optimizers from settings; model backends are imported only when used."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perfpilot.engine.keys import secret_fingerprint
from perfpilot.optimizing.base import Optimizer
from perfpilot.planning.base import Planner
from perfpilot.settings import RoleSettings

if TYPE_CHECKING:
    from perfpilot.llm.local import LocalWorkerRegistry


class BackendError(Exception):
    """A backend could not be created; the message says what to fix."""


class ModelClients:
    """The model clients of one engine: one per (backend, model, endpoint, placement), and one
    worker process per local model however its roles spell its path (the registry's spec)."""

    def __init__(self) -> None:
        self.by_key: dict[str, Any] = {}
        self.registry: LocalWorkerRegistry | None = None

    def local_registry(self) -> LocalWorkerRegistry:
        """The registry of local workers (created on first use: it imports the local backend)."""
        if self.registry is None:
            from perfpilot.llm.local import LocalWorkerRegistry

            self.registry = LocalWorkerRegistry()
        return self.registry

    async def close(self) -> list[str]:
        """Close every client and stop every worker; the failures, as messages."""
        failures: list[str] = []
        for client in list(self.by_key.values()):
            closer = getattr(client, "close", None)
            if closer is not None:
                try:
                    await closer()
                except Exception as exc:  # closing must not mask the caller's outcome
                    failures.append(f"closing a model client failed: {exc}")
        self.by_key.clear()
        if self.registry is not None:
            try:
                await self.registry.close()
            except Exception as exc:
                failures.append(f"stopping a local model worker failed: {exc}")
        return failures


def plan_only(planner: RoleSettings, optimizer: RoleSettings) -> bool:
    """PerfCoder's plan-only mode: the planner stops at ``[/SUGG]`` when another model
    writes the code; with the same model (or the builtin rewriter) it writes code too."""
    if optimizer.backend == "builtin":
        return False
    same = (planner.backend, planner.model, planner.endpoint) == (
        optimizer.backend, optimizer.model, optimizer.endpoint)
    return not same


def make_planner(role: RoleSettings, secrets: Mapping[str, str], clients: ModelClients,
                 *, only_plan: bool = False) -> Planner:
    """The planner for ``role``; model clients are shared through ``clients``."""
    if role.backend == "builtin":
        from perfpilot.planning.builtin.planner import BuiltinPlanner

        return BuiltinPlanner()
    if role.backend == "replay":
        raise BackendError("planner: the replay backend only answers as the optimizer; "
                           "set the planner to builtin, local or remote")
    from perfpilot.planning.llm_planner import ModelPlanner

    return ModelPlanner(role, _client(role, secrets, clients, "planner"), plan_only=only_plan)


def make_optimizer(role: RoleSettings, secrets: Mapping[str, str], clients: ModelClients,
                   flags: tuple[str, ...] = (), compiler: str = "",
                   workspace: Path | None = None) -> Optimizer:
    """The optimizer for ``role``; the builtin one syntax-checks with ``flags``; the replay
    one reads ``role.answers`` (relative to ``workspace``)."""
    if role.backend == "builtin":
        from perfpilot.optimizing.builtin.optimizer import BuiltinOptimizer

        return BuiltinOptimizer(flags=flags, compiler=compiler or None)
    if role.backend == "replay":
        from perfpilot.optimizing.replay import ReplayOptimizer

        return ReplayOptimizer(role, answers_folder(role, workspace))
    from perfpilot.optimizing.llm_optimizer import ModelOptimizer

    return ModelOptimizer(role, _client(role, secrets, clients, "optimizer"))


def answers_folder(role: RoleSettings, workspace: Path | None) -> Path:
    """The replay backend's folder of answers: ``role.answers``, relative to the workspace
    when it is not absolute. Raises BackendError when it is unset or not a folder."""
    if not role.answers:
        raise BackendError("optimizer: the replay backend needs a folder of answers "
                           "(optimizer.answers, or --answers DIR)")
    folder = Path(role.answers).expanduser()
    if not folder.is_absolute() and workspace is not None:
        folder = workspace / folder
    if not folder.is_dir():
        raise BackendError(f"optimizer: the replay answers folder {folder} does not exist")
    return folder


def _client(role: RoleSettings, secrets: Mapping[str, str], clients: ModelClients,
            name: str) -> Any:
    """One client per (backend, model, endpoint): a local model is loaded once for both roles.

    A remote client holds its API key, so it is also keyed by the secrets' fingerprint: a key
    rotated in the editor gets a new client."""
    key = f"{role.backend}|{role.model}|{role.endpoint}|{role.device}|{role.dtype}|{role.threads}"
    if role.backend == "remote":
        key += f"|{secret_fingerprint(secrets)}"
    if key not in clients.by_key:
        try:
            from perfpilot.llm.errors import ModelError, for_role
            from perfpilot.llm.factory import make_client
        except ImportError as exc:  # pragma: no cover - depends on installed extras
            raise BackendError(f"{name}: the {role.backend} backend is not available: "
                               f"{exc}") from exc
        try:
            registry = clients.local_registry() if role.backend == "local" else None
            clients.by_key[key] = make_client(role, secrets, registry)
        except ModelError as exc:
            raise for_role(exc, name) from exc
    return clients.by_key[key]
