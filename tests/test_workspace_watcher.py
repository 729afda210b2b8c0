"""The workspace watcher reports a changed measurement input once, after it settles."""

from __future__ import annotations

import asyncio
from pathlib import Path

from perfpilot.engine.watch import WorkspaceWatcher, is_measurement_input


def test_measurement_inputs_are_specs_data_and_compile_databases() -> None:
    assert is_measurement_input(Path("a/f.bench.cpp"))
    assert is_measurement_input(Path("compile_commands.json"))
    assert is_measurement_input(Path("case.in"))
    assert not is_measurement_input(Path("src/f.cpp"))
    assert not is_measurement_input(Path(".perfpilot/results/x.out"))


async def test_a_file_written_in_several_steps_is_reported_once_complete(tmp_path: Path) -> None:
    seen: list[tuple[Path, str]] = []
    db = tmp_path / "compile_commands.json"
    watcher = WorkspaceWatcher(tmp_path, lambda p: seen.append((p, p.read_text())),
                               asyncio.get_running_loop(), settle_s=0.5)
    watcher.start()
    try:
        await asyncio.sleep(0.2)
        # Truncate, then write in pieces: each is an event; only the whole file is read.
        with db.open("w") as out:
            for part in ('[{"file": "a.cpp", ', '"arguments": ["g++", "-O1"]', "}]"):
                out.write(part)
                out.flush()
                await asyncio.sleep(0.05)
        (tmp_path / "notes.txt").write_text("not an input")
        for _ in range(40):
            await asyncio.sleep(0.1)
            if seen:
                break
        await asyncio.sleep(0.8)  # nothing more arrives for the same write
    finally:
        watcher.stop()
    assert seen == [(db.resolve(), '[{"file": "a.cpp", "arguments": ["g++", "-O1"]}]')]
