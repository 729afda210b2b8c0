"""Building the text generator for a role from its settings."""

from __future__ import annotations

import os
from collections.abc import Mapping

from perfpilot.llm.base import TextGenerator
from perfpilot.llm.errors import ModelError
from perfpilot.llm.local import LocalClient, LocalWorker, LocalWorkerRegistry, WorkerSpec
from perfpilot.llm.remote import RemoteClient, resolve_api_key
from perfpilot.settings import RoleSettings


def make_client(role: RoleSettings, secrets: Mapping[str, str],
                registry: LocalWorkerRegistry | None = None,
                environ: Mapping[str, str] | None = None) -> TextGenerator:
    """The ``TextGenerator`` for a local or remote role.

    Local roles take their worker from ``registry`` so that roles naming the same model (and
    device, dtype, threads) share one process; the registry's owner stops the workers. Without
    a registry the client owns a worker of its own and ``close()`` stops it. Remote roles read
    the API key from ``secrets`` (``"api_key"``/``"apiKey"``, or the name in
    ``role.api_key_env``) or from the
    environment variable ``role.api_key_env``. Starts nothing: the worker starts on first use.
    Raises ``ModelError`` for a builtin role or a malformed endpoint URL.
    """
    if role.backend == "local":
        if registry is not None:
            return LocalClient(role, registry.worker_for(role), owns_worker=False)
        return LocalClient(role, LocalWorker(WorkerSpec.from_role(role)), owns_worker=True)
    if role.backend == "remote":
        key = resolve_api_key(role, secrets, os.environ if environ is None else environ)
        return RemoteClient(role, key)
    raise ModelError(f"the {role.backend} backend has no model client", "bad-request")
