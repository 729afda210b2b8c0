"""Testing a role's connection before the first real job ("Test connection")."""

from __future__ import annotations

import os
import time

import httpx

from perfpilot.llm.errors import EndpointError, ModelError
from perfpilot.llm.local_worker import locate_model_files
from perfpilot.llm.remote import RemoteClient, models_url, resolve_api_key
from perfpilot.progress import JobContext
from perfpilot.settings import RoleSettings


async def check_endpoint(role: RoleSettings, api_key: str | None) -> tuple[bool, str]:
    """Test a role's connection: one 1-token chat completion with the configured model.

    Returns ``(ok, message)``; the message says what answered or what to fix. Without
    ``api_key`` the key comes from the environment variable ``role.api_key_env``, if set.
    A local role's model is loaded in a worker process (never downloaded) and asked for one
    token; for builtin there is nothing to check.
    """
    if role.backend == "builtin":
        return True, "the builtin backend needs no model"
    if role.backend == "local":
        return await _check_local(role)
    key = api_key or resolve_api_key(role, {}, os.environ)
    try:
        client = RemoteClient(role, key, max_retries=0)
    except EndpointError as exc:
        return False, str(exc)
    started = time.monotonic()
    try:
        await client.generate([{"role": "user", "content": "Reply with OK."}], n=1,
                              max_tokens=1, temperature=0.0, stop=[], ctx=JobContext())
    except EndpointError as exc:
        message = str(exc)
        if exc.kind == "unknown-model":
            served = await _served_models(client)
            if served:
                message += f"; the server lists: {', '.join(served[:10])}"
        return False, message
    finally:
        await client.close()
    took = time.monotonic() - started
    return True, f"{client.shown_url} answered with model '{role.model}' in {took:.1f} s"


async def _check_local(role: RoleSettings) -> tuple[bool, str]:
    """Load the local model in its own worker, generate one token, stop the worker."""
    from perfpilot.llm.local import LocalWorker, WorkerSpec

    try:
        files = locate_model_files(role.model)
    except ModelError as exc:
        return False, str(exc)
    what = files.directory / files.gguf_file if files.gguf_file else files.directory
    worker = LocalWorker(WorkerSpec.from_role(role), idle_s=0)
    started = time.monotonic()
    try:
        await worker.generate([{"role": "user", "content": "Reply with OK."}], n=1,
                              max_tokens=1, temperature=0.0, stop=[], ctx=JobContext(),
                              timeout_s=role.timeout_s)
    except ModelError as exc:
        return False, str(exc)
    finally:
        await worker.stop()
    took = time.monotonic() - started
    where = f"{worker.info.get('device', role.device)}, {worker.info.get('dtype', role.dtype)}"
    return True, f"the local model {what} loaded ({where}) and answered in {took:.1f} s"


async def _served_models(client: RemoteClient) -> list[str]:
    """Model ids from ``GET /models``, or [] when the server has no such list."""
    try:
        response = await client.http().get(models_url(client.role.endpoint))
        data = response.json()
        return [str(m["id"]) for m in data.get("data", []) if isinstance(m, dict) and "id" in m]
    except (httpx.HTTPError, ValueError, AttributeError, TypeError):
        return []
