"""``optimize --write`` obeys the apply mode: a rewrite reaches the file only once it was
measured faster, and a write that does not happen exits with its own status (4)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from perfpilot import exit_codes
from test_llm_remote_faults import FaultyEndpoint, Stream

SOURCE = """\
#include <vector>

unsigned long count_items(const std::vector<int>& v)
{
    unsigned long n = 0;
    for (std::size_t i = 0; i < v.size(); ++i)
        ++n;
    return n;
}
"""
# A model's rewrite that compiles, keeps the signature, and is wrong.
WRONG = """```cpp
unsigned long count_items(const std::vector<int>& v)
{
    return 42 + v.size();
}
```"""


async def perfpilot(*args: str, cwd: Path) -> tuple[int, str, str]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(cwd / "config")}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "perfpilot", *args, cwd=cwd, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 600)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_wrong_model_rewrite_is_measured_and_never_written(tmp_path: Path) -> None:
    path = tmp_path / "items.cpp"
    path.write_text(SOURCE)
    async with FaultyEndpoint(Stream(WRONG)) as ep:
        status, out, err = await perfpilot(
            "optimize", str(path), "--function", "count_items", "--write",
            "--optimizer", "remote", "--endpoint", ep.url, "--model", "tiny", cwd=tmp_path)
    # The rewrite came from the model; being wrong, it went back once with the verdict (the
    # repair round), and the same code again was not measured twice.
    assert len(ep.requests) == 2
    repair_prompt = ep.requests[1]["json"]["messages"][1]["content"]
    assert "42 + v.size()" in repair_prompt and "they differ" in repair_prompt
    assert "Rejected (remote, repair round 1): the repair answer is the code already " \
        "measured" in out, out
    assert status == exit_codes.WRITE_REFUSED, err
    assert "--write measures the candidates first" in err
    # Measured (without --bench): the verdict says why it is not written.
    assert "42 + v.size()" in out, out
    assert "Measured (incorrect)" in out or "Measured (rejected)" in out, out
    refusal = [line for line in err.splitlines() if "not written" in line]
    assert len(refusal) == 1 and refusal[0].startswith("perfpilot: "), err
    assert "Traceback" not in err
    assert path.read_text() == SOURCE


async def test_nothing_to_write_has_its_own_exit_status(tmp_path: Path) -> None:
    path = tmp_path / "plain.cpp"
    path.write_text("int same(int x)\n{\n    return x;\n}\n")
    status, _out, err = await perfpilot("optimize", str(path), "--function", "same",
                                        "--write", cwd=tmp_path)
    assert status == exit_codes.WRITE_REFUSED == 4, err
    assert "not written" in err
    assert path.read_text() == "int same(int x)\n{\n    return x;\n}\n"


async def test_a_model_rewrite_written_to_a_crlf_file_has_crlf_lines(tmp_path: Path) -> None:
    # The model answers with LF lines; the file is CRLF; the written file is CRLF throughout.
    # (The runner is off in this trusted workspace: the line endings are under test.)
    path = tmp_path / "items.cpp"
    path.write_bytes(SOURCE.replace("\n", "\r\n").encode())
    (tmp_path / ".perfpilot.toml").write_text("[runner]\nenabled = false\n")
    right = ("```cpp\nunsigned long count_items(const std::vector<int>& v)\n{\n"
             "    return v.size();\n}\n```")
    async with FaultyEndpoint(Stream(right)) as ep:
        status, _out, err = await perfpilot(
            "optimize", str(path), "--function", "count_items", "--write", "--trust-workspace",
            "--optimizer", "remote", "--endpoint", ep.url, "--model", "tiny", cwd=tmp_path)
    assert status == exit_codes.OK, err
    data = path.read_bytes()
    assert b"    return v.size();\r\n}\r\n" in data, data
    assert data.count(b"\n") == data.count(b"\r\n"), data
