"""SFT rows from several sources, mixed: collected records, PIE-format pairs, prepared rows.

Each ``--data`` file is read by its first object: a ``perfpilot-train/1`` record file (what
``train collect`` writes) gives the plans that led to strongly verified speedups; a file of
``{prompt, completion}`` rows (``train collect --rows``' ``sft.jsonl``) is taken as it is; any
other JSONL is read as PIE / PerfCoder slow/fast pairs (``pie.py``), annotated with their plan
or, without one, with the builtin analyser's. The generated corpus is added by the caller.
Held-out rows are split off by function, so no held-out prompt is seen in training.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfpilot.engine.records import SCHEMA
from perfpilot.training.examples import record_sft_rows
from perfpilot.training.pie import import_pairs
from perfpilot.training.records import read_jsonl

Row = dict[str, Any]


@dataclass(frozen=True)
class Loaded:
    """Rows read from data files, with what each file gave."""

    rows: tuple[Row, ...]
    messages: tuple[str, ...]


def _first(path: Path) -> dict[str, Any] | None:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                try:
                    data = json.loads(line)
                except ValueError:
                    return None
                return data if isinstance(data, dict) else None
    return None


def _is_row(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("prompt"), list) \
        and isinstance(data.get("completion"), list)


def load_sft(paths: Sequence[Path], with_code: bool = False) -> Loaded:
    """SFT rows from every file in ``paths``; each file's kind is told by its first line."""
    rows: list[Row] = []
    messages: list[str] = []
    for path in paths:
        first = _first(path)
        if first is None:
            messages.append(f"{path}: no JSON object on its first line; skipped")
            continue
        skipped: list[str] = []
        if first.get("schema") == SCHEMA:
            got = record_sft_rows(list(read_jsonl(path, skipped)), with_code)
            kind = "records"
        elif _is_row(first):
            got = []
            with path.open(encoding="utf-8") as fh:
                for number, line in enumerate(fh, 1):
                    try:
                        data = json.loads(line) if line.strip() else None
                    except ValueError:
                        data = None
                    if isinstance(data, dict) and _is_row(data):
                        got.append(data)
                    elif line.strip():
                        skipped.append(f"{path}:{number}: not a prompt/completion row")
            kind = "rows"
        else:
            pairs = import_pairs(path)
            skipped.extend(pairs.skipped)
            got = record_sft_rows(list(pairs.records), with_code)
            kind = "PIE pairs"
        rows.extend(got)
        messages.append(f"{path}: {len(got)} SFT rows ({kind})"
                        + (f", {len(skipped)} lines skipped" if skipped else ""))
        messages.extend(skipped[:5])
    return Loaded(tuple(rows), tuple(messages))


def _prompt_key(row: Row) -> str:
    return json.dumps(row.get("prompt"), sort_keys=True)


def split_heldout(rows: Sequence[Row], share: float, seed: int = 0
                  ) -> tuple[list[Row], list[Row]]:
    """(train, held-out): about ``share`` of the distinct prompts (functions) held out, chosen
    by hash so the split is the same on every run; with fewer than 5 prompts nothing is."""
    prompts = {_prompt_key(r) for r in rows}
    if share <= 0 or len(prompts) < 5:
        return list(rows), []

    def held(key: str) -> bool:
        digest = hashlib.sha256(f"{seed}:{key}".encode()).digest()
        return int.from_bytes(digest[:4], "big") / 2 ** 32 < share

    train = [r for r in rows if not held(_prompt_key(r))]
    out = [r for r in rows if held(_prompt_key(r))]
    if not out or not train:  # keep at least one of each when the hash put all on one side
        keys = sorted(prompts)
        out_keys = set(keys[: max(1, round(share * len(keys)))])
        train = [r for r in rows if _prompt_key(r) not in out_keys]
        out = [r for r in rows if _prompt_key(r) in out_keys]
    return train, out
