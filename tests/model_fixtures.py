"""Serving a local model directory as a real OpenAI-compatible endpoint for tests:
``transformers serve`` on a free 127.0.0.1 port, in its own process group."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

CLI = Path(sys.executable).parent / "transformers"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def transformers_serve(model: Path, log_path: Path,
                       startup_s: float = 120.0) -> Iterator[str]:
    """Run ``transformers serve`` pinned to ``model``; yields the base URL (``.../v1``).

    The request's ``model`` must equal ``str(model)``, the pinned name. Skips the test when
    the CLI (extra ``[serving]``) is missing; stops the server's process group on exit.
    """
    cli = str(CLI) if CLI.exists() else shutil.which("transformers")
    if cli is None:
        pytest.skip("the transformers CLI is not installed (extra [serving])")
    port = free_port()
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", OMP_NUM_THREADS="1")
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [cli, "serve", str(model), "--host", "127.0.0.1", "--port", str(port), "--device",
             "cpu"], stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + startup_s
            while True:
                if proc.poll() is not None:
                    pytest.fail(f"transformers serve exited with {proc.returncode}")
                try:
                    if httpx.get(base + "/health", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    pytest.fail(f"transformers serve did not come up within {startup_s:.0f} s")
                time.sleep(0.3)
            yield base + "/v1"
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)  # the server we started, in its own session
                try:
                    proc.wait(15)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
