"""A training log written while the run goes: one JSON line per logging step.

The card written at the end keeps the whole log too, but a long run (thousands of steps on a
GPU) should be followable while it trains and leave its history behind if it is stopped:
``OUT/training-log.jsonl`` gets each of the trainer's log entries as it is made.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

LOG_NAME = "training-log.jsonl"


def jsonl_callback(out: Path, resume: bool = False) -> Any:
    """A transformers ``TrainerCallback`` appending each log entry, with its step, to
    ``out/training-log.jsonl``: a resumed run appends to the log, a new run starts it anew."""
    from transformers import TrainerCallback

    if not resume:
        (out / LOG_NAME).unlink(missing_ok=True)

    class _JsonlLog(TrainerCallback):  # type: ignore[misc]
        def on_log(self, args: Any, state: Any, control: Any,
                   logs: dict[str, Any] | None = None, **kwargs: Any) -> None:
            if not logs or not state.is_world_process_zero:
                return
            entry = {"step": state.global_step, **logs}
            out.mkdir(parents=True, exist_ok=True)
            with (out / LOG_NAME).open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(entry, default=str) + "\n")

    return _JsonlLog()
