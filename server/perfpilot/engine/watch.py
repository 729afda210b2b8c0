"""Watching the workspace for changes to files that decide measurements.

watchdog runs its observer on its own thread; events are handed to the asyncio loop with
``call_soon_threadsafe`` so the engine's state is only touched on the loop. A path is
reported once it has been quiet for a moment: writing a file is often several events
(truncate, then write), and acting on the first would read it half written.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

log = logging.getLogger(__name__)


def is_measurement_input(path: Path) -> bool:
    """Spec files, stdin inputs/outputs and compile databases; never our own results."""
    if ".perfpilot" in path.parts and "results" in path.parts:
        return False
    name = path.name
    return (name.endswith((".bench.cpp", ".in", ".out"))
            or name == "compile_commands.json")


SETTLE_S = 0.3  # how long a changed path must be quiet before it is reported


class _Handler(FileSystemEventHandler):
    def __init__(self, loop: asyncio.AbstractEventLoop,
                 on_change: Callable[[Path], None], settle_s: float) -> None:
        self._loop = loop
        self._on_change = on_change
        self._settle_s = settle_s
        self._timers: dict[Path, asyncio.TimerHandle] = {}  # touched only on the loop

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type not in ("modified", "created", "moved", "deleted"):
            return
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            if not raw:
                continue
            path = Path(raw if isinstance(raw, str) else raw.decode())
            if is_measurement_input(path):
                self._loop.call_soon_threadsafe(self._changed, path.resolve())

    def _changed(self, path: Path) -> None:
        """On the loop: (re)start the path's quiet timer."""
        timer = self._timers.pop(path, None)
        if timer is not None:
            timer.cancel()
        self._timers[path] = self._loop.call_later(self._settle_s, self._settled, path)

    def _settled(self, path: Path) -> None:
        self._timers.pop(path, None)
        self._on_change(path)


class WorkspaceWatcher:
    """Calls ``on_change(path)`` on the loop when a measurement input under ``root`` changes."""

    def __init__(self, root: Path, on_change: Callable[[Path], None],
                 loop: asyncio.AbstractEventLoop, settle_s: float = SETTLE_S) -> None:
        self._observer = Observer()
        self._observer.daemon = True
        self._observer.schedule(_Handler(loop, on_change, settle_s), str(root), recursive=True)

    def start(self) -> None:
        """Start watching (failures, such as too many watches, are logged and ignored)."""
        try:
            self._observer.start()
        except OSError as exc:
            log.warning("not watching the workspace: %s", exc)

    def stop(self) -> None:
        """Stop the observer thread."""
        if self._observer.is_alive():
            self._observer.stop()
            self._observer.join(timeout=2)
