"""The local backend end to end on a tiny random Qwen2: worker process, streaming progress,
cancellation mid-generation, crash and idle restarts, and load errors."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest

from optional_support import needs
from perfpilot.llm.errors import LocalModelError
from perfpilot.llm.factory import make_client
from perfpilot.llm.local import LocalClient, LocalWorker, LocalWorkerRegistry, WorkerSpec
from perfpilot.progress import Cancelled, JobContext
from perfpilot.settings import RoleSettings
from test_llm_tiny_models import cached_tiny_model

pytestmark = needs("torch", "transformers")


@pytest.fixture(scope="session")
def tiny_qwen2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session's tiny random Qwen2 directory (built once, shared with other modules)."""
    return cached_tiny_model(tmp_path_factory.getbasetemp(), "tiny-qwen2")

HELLO = [{"role": "user", "content": "Say something."}]


class ProgressLog:
    """Collects (stage, message) reports and exposes the token counts seen."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []
        self.tokens_seen = asyncio.Event()

    def __call__(self, stage: str, message: str, percent: int | None) -> None:
        self.events.append((stage, message))
        if stage == "generating" and message.split()[0].isdigit() and int(message.split()[0]):
            self.tokens_seen.set()

    @property
    def token_counts(self) -> list[int]:
        return [int(m.split()[0]) for s, m in self.events
                if s == "generating" and m.split()[0].isdigit()]


def local_role(model: Path | str, **kw: object) -> RoleSettings:
    fields: dict[str, object] = {"backend": "local", "model": str(model), "max_tokens": 16,
                                 "temperature": 0.0, "timeout_s": 120.0}
    fields.update(kw)
    return RoleSettings(**fields)  # type: ignore[arg-type]


async def test_generate_cancel_and_reuse_the_warm_worker(tiny_qwen2: Path) -> None:
    worker = LocalWorker(WorkerSpec.from_role(local_role(tiny_qwen2)))
    client = LocalClient(local_role(tiny_qwen2), worker, owns_worker=True)
    try:
        # A job cancelled while the model loads returns at once; the load goes on, so the
        # next job finds the worker warm.
        loading = JobContext()
        loading_job = asyncio.create_task(client.generate(
            HELLO, n=1, max_tokens=12, temperature=0.0, stop=[],
            ctx=JobContext(cancelled=loading.cancelled,
                           on_report=lambda s, m, p: loading.cancel())))
        with pytest.raises(Cancelled):
            await loading_job
        assert worker.starts == 1

        log = ProgressLog()
        texts = await client.generate(HELLO, n=1, max_tokens=12, temperature=0.0, stop=[],
                                      ctx=JobContext(on_report=log))
        assert len(texts) == 1 and texts[0]
        assert worker.starts == 1
        assert worker.info["device"] == "cpu" and worker.info["chat_template"] is True
        pid = worker.pid
        assert pid is not None

        # Cancel a long generation as soon as tokens stream: the worker stops at the next
        # token (stopping criterion), answers, and stays loaded; it is not killed.
        log2 = ProgressLog()
        ctx = JobContext(on_report=log2)
        job = asyncio.create_task(client.generate(HELLO, n=1, max_tokens=3500,
                                                  temperature=0.0, stop=[], ctx=ctx))
        await asyncio.wait_for(log2.tokens_seen.wait(), 60)
        ctx.cancel()
        with pytest.raises(Cancelled):
            await job
        assert worker.pid == pid and worker.starts == 1
        assert log2.token_counts and max(log2.token_counts) < 3500

        # A generation silent for longer than timeoutS (here: the prompt's prefill and first
        # tokens take longer than 1 ms) is stopped the same way, with a clear message.
        with pytest.raises(LocalModelError, match="made no progress for 0 s") as info:
            await worker.generate(HELLO, n=1, max_tokens=3500, temperature=0.0, stop=[],
                                  ctx=JobContext(), timeout_s=0.001)
        assert info.value.kind == "timeout"
        assert worker.pid == pid and worker.starts == 1

        # Two jobs at once (planner and optimizer sharing the model) take turns.
        both = await asyncio.gather(*(
            client.generate(HELLO, n=1, max_tokens=6, temperature=0.0, stop=[],
                            ctx=JobContext()) for _ in range(2)))
        assert [len(t) for t in both] == [1, 1] and both[0] == both[1]

        # Sampling two completions in the same warm worker.
        two = await client.generate(HELLO, n=2, max_tokens=8, temperature=0.9, stop=[],
                                    ctx=JobContext())
        assert len(two) == 2
        assert worker.pid == pid and worker.starts == 1
    finally:
        await client.close()
    assert not worker.running


async def test_worker_restarts_after_a_crash_and_after_idle_unload(tiny_qwen2: Path) -> None:
    worker = LocalWorker(WorkerSpec.from_role(local_role(tiny_qwen2)), idle_s=0.5)
    try:
        log = ProgressLog()
        job = asyncio.create_task(worker.generate(
            HELLO, n=1, max_tokens=3500, temperature=0.0, stop=[],
            ctx=JobContext(on_report=log), timeout_s=120))
        await asyncio.wait_for(log.tokens_seen.wait(), 60)
        pid = worker.pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)  # our own worker, killed as an OOM killer would
        with pytest.raises(LocalModelError, match="stopped unexpectedly") as info:
            await job
        assert info.value.kind == "worker-crashed"
        assert "killed" in str(info.value)

        texts = await worker.generate(HELLO, n=1, max_tokens=4, temperature=0.0, stop=[],
                                      ctx=JobContext(), timeout_s=120)
        assert texts and worker.starts == 2 and worker.pid != pid

        for _ in range(100):  # idle unload after 0.5 s
            if not worker.running:
                break
            await asyncio.sleep(0.1)
        assert not worker.running
        await worker.generate(HELLO, n=1, max_tokens=4, temperature=0.0, stop=[],
                              ctx=JobContext(), timeout_s=120)
        assert worker.starts == 3
    finally:
        await worker.stop()


async def test_missing_model_is_one_clear_error_and_the_next_call_retries(
        tmp_path: Path) -> None:
    client = make_client(local_role(tmp_path / "nowhere"), {})
    try:
        with pytest.raises(LocalModelError, match="local model not found") as info:
            await client.generate(HELLO, n=1, max_tokens=4, temperature=0, stop=[],
                                  ctx=JobContext())
        assert info.value.kind == "not-found"
        with pytest.raises(LocalModelError, match="local model not found"):
            await client.generate(HELLO, n=1, max_tokens=4, temperature=0, stop=[],
                                  ctx=JobContext())
    finally:
        await client.close()


async def test_wrong_formats_are_reported(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    bogus = tmp_path / "bogus"
    bogus.mkdir()
    (bogus / "config.json").write_text('{"model_type": "no-such-architecture"}')
    no_tokenizer = tmp_path / "weights-only"
    no_tokenizer.mkdir()
    (no_tokenizer / "config.json").write_text('{"model_type": "qwen2"}')
    cases = [(tmp_path / "notes.txt", "not a .gguf model"),
             (tmp_path, "no config.json and no .gguf"),
             (no_tokenizer, r"no tokenizer files: it needs tokenizer\.json, or tokenizer\.model, "
                            r"or vocab\.json with merges\.txt \(copy them from the repository"),
             (bogus, "could not load the model")]
    (bogus / "tokenizer.json").write_text("{}")
    for path, message in cases:
        client = make_client(local_role(path), {})
        try:
            with pytest.raises(LocalModelError, match=message):
                await client.generate(HELLO, n=1, max_tokens=4, temperature=0, stop=[],
                                      ctx=JobContext())
        finally:
            await client.close()


def test_registry_shares_one_worker_per_model_spec(tiny_qwen2: Path) -> None:
    registry = LocalWorkerRegistry()
    planner = make_client(local_role(tiny_qwen2, temperature=0.0), {}, registry)
    optimizer = make_client(local_role(str(tiny_qwen2) + "/", samples=4), {}, registry)
    other = make_client(local_role(tiny_qwen2, threads=2), {}, registry)
    assert isinstance(planner, LocalClient) and isinstance(optimizer, LocalClient)
    assert isinstance(other, LocalClient)
    assert planner.worker is optimizer.worker
    assert other.worker is not planner.worker
    assert len(registry.workers) == 2


async def test_check_endpoint_loads_a_local_model(tiny_qwen2: Path, tmp_path: Path) -> None:
    from perfpilot.llm.check import check_endpoint

    ok, message = await check_endpoint(local_role(tiny_qwen2), None)
    assert ok and str(tiny_qwen2) in message and "answered" in message, message
    (tmp_path / "config.json").write_text('{"model_type": "qwen2"}')
    ok, message = await check_endpoint(local_role(tmp_path), None)
    assert not ok and "no tokenizer files" in message


def test_cli_check_endpoint_for_a_local_model_and_exit_codes(tiny_qwen2: Path,
                                                             tmp_path: Path) -> None:
    import subprocess
    import sys

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "perfpilot", "check-endpoint", *args],
                              capture_output=True, text=True, cwd=tmp_path, timeout=300)

    good = run("--role", "planner", "--model", str(tiny_qwen2))
    assert good.returncode == 0, good.stderr
    assert good.stdout.startswith("planner: the local model") and "answered" in good.stdout
    missing = run("--model", str(tmp_path / "nowhere"))
    assert missing.returncode == 3, missing.stderr
    assert missing.stderr.startswith("perfpilot: optimizer: local model not found")
    nothing = run()
    assert nothing.returncode == 2 and "nothing to check" in nothing.stderr
