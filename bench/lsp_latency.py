"""Code-action and hover latency of the real server on a 5,000-line C++ file.

Measures p50/p95 round trips idle and while a "Make this faster" job runs in the background
(building and timing with the runner). Prints a markdown table.

    .venv/bin/python bench/lsp_latency.py [--requests 200]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

HOT = """\
double hot(std::vector<double> v) {
    double s = 0;
    for (size_t i = 0; i < v.size(); ++i) s += v[i] * v[i];
    return s;
}
"""


def make_file(lines: int) -> str:
    """A C++ unit of about ``lines`` lines: many small functions and one hot one."""
    out = ["#include <vector>", "#include <cstddef>", ""]
    i = 0
    while len(out) < lines - 8:
        out += [f"int helper_{i}(int x, int y) {{", f"    int r = x * {i} + y;",
                "    if (r > 100) r -= y;", "    return r;", "}", ""]
        i += 1
    return "\n".join(out) + "\n" + HOT


def pct(values: list[float], q: float) -> float:
    """The q-th percentile (nearest rank) in milliseconds."""
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(q / 100 * len(ordered)) - 1))
    return ordered[k] * 1e3


async def timed(n: int, call: Any) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        await call()
        out.append(time.perf_counter() - t)
    return out


async def main(requests: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        text = make_file(5000)
        path = root / "big.cpp"
        path.write_text(text)
        client = LanguageClient("bench", "1")

        @client.feature(lsp.WORKSPACE_APPLY_EDIT)
        def _apply(params: lsp.ApplyWorkspaceEditParams) -> lsp.ApplyWorkspaceEditResult:
            return lsp.ApplyWorkspaceEditResult(applied=False, failure_reason="benchmark")

        for method in ("perfpilot/jobStatus", lsp.WINDOW_LOG_MESSAGE, lsp.WINDOW_SHOW_MESSAGE,
                       lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, lsp.PROGRESS):
            client.feature(method)(lambda *args: None)

        await client.start_io(sys.executable, "-m", "perfpilot", "serve")
        await client.initialize_async(lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(), root_uri=root.as_uri(),
            initialization_options={"settings": {"runner": {"callgrind": False}}}))
        client.initialized(lsp.InitializedParams())
        uri = path.as_uri()
        client.text_document_did_open(lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri, "cpp", 1, text)))
        lines = text.split("\n")
        hot = next(i for i, line in enumerate(lines) if line.startswith("double hot"))
        mid = len(lines) // 2

        async def action() -> None:
            pos = lsp.Position(mid, 4)
            await client.text_document_code_action_async(lsp.CodeActionParams(
                lsp.TextDocumentIdentifier(uri), lsp.Range(pos, pos),
                lsp.CodeActionContext(diagnostics=[])))

        async def hover() -> None:
            await client.text_document_hover_async(lsp.HoverParams(
                lsp.TextDocumentIdentifier(uri), lsp.Position(hot, 8)))

        await action()  # the first request parses the file and fills the outline cache
        rows = []
        rows.append(("idle", "codeAction", await timed(requests, action)))
        rows.append(("idle", "hover", await timed(requests, hover)))
        result = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            "perfpilot.makeFaster", [{"uri": uri, "line": hot + 1, "character": 4}]))
        await asyncio.sleep(0.5)
        rows.append(("job running", "codeAction", await timed(requests, action)))
        rows.append(("job running", "hover", await timed(requests, hover)))
        await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            "perfpilot.cancel", [{"jobId": result["jobId"]}]))
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
    print(f"5,000-line C++ file, {requests} requests each\n")
    print("| state | request | p50 ms | p95 ms | max ms |")
    print("|---|---|---|---|---|")
    for state, name, values in rows:
        print(f"| {state} | {name} | {statistics.median(values) * 1e3:.2f} | "
              f"{pct(values, 95):.2f} | {max(values) * 1e3:.2f} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=200)
    asyncio.run(main(parser.parse_args().requests))
