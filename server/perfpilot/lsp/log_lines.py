"""The language server's stderr log: one line per record, and no floods.

A client that sends malformed messages made every one of them log a traceback (pygls logs the
exception of its message loop and of its deserializer, several lines each, and the server then
logs its own line): 106 MB of stderr in a four-minute flood. Here every record becomes one
line (an exception as its type and first line, never a traceback), pygls's records that the
server's own lines replace are dropped, and a line repeated more than ``burst`` times within
``window_s`` seconds is counted instead of printed; the next one printed says how many were not.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

MAX_LINE = 300
# pygls's own records for what the server answers and logs itself (transport.py,
# language_server.report_server_error): one line per malformed message, not two.
_REPLACED = ("Unable to handle message", "Unable to deserialize message")


@dataclass
class _Window:
    started: float
    printed: int = 0
    suppressed: int = 0


class OneLineRecords(logging.Filter):
    """A handler filter: each record as one bounded line, and repeated lines rate-limited.

    Lines repeat when their logger and message template are the same (the arguments may
    differ: a flood of bad bodies differs only in where the JSON broke)."""

    def __init__(self, *, burst: int = 20, window_s: float = 10.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.burst = burst
        self.window_s = window_s
        self._clock = clock
        self._windows: dict[tuple[str, str], _Window] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        """Whether to print the record; rewrites it as one line first."""
        template = str(record.msg)
        if record.name.startswith("pygls") and template.startswith(_REPLACED):
            return False
        key = (record.name, template[:200])
        now = self._clock()
        window = self._windows.get(key)
        if window is None or now - window.started >= self.window_s:
            held = window.suppressed if window is not None else 0
            if len(self._windows) > 1000:  # many templates: forget the old windows
                self._windows.clear()
            window = self._windows[key] = _Window(now)
        else:
            held = 0
        if window.printed >= self.burst:
            window.suppressed += 1
            return False
        window.printed += 1
        text = _one_line(record)
        if held:
            text += f" ({held} more like this in the last {self.window_s:g} s not logged)"
        record.msg, record.args = text, None
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        return True


def _one_line(record: logging.LogRecord) -> str:
    try:
        message = record.getMessage()
    except Exception:  # a record whose arguments do not fit its template
        message = str(record.msg)
    lines = message.strip().splitlines()
    text = lines[0] if lines else ""
    if record.exc_info and record.exc_info[1] is not None:
        exc = record.exc_info[1]
        detail = str(exc).strip().splitlines()
        text += f": {type(exc).__name__}" + (f": {detail[0]}" if detail else "")
    return text if len(text) <= MAX_LINE else text[:MAX_LINE - 1] + "…"


def one_line_logging(handlers: Iterable[logging.Handler]) -> None:
    """Make ``handlers`` (the stderr handler of ``perfpilot serve``) print one line per
    record and rate-limit repeated lines."""
    line_filter = OneLineRecords()
    for handler in handlers:
        handler.addFilter(line_filter)
