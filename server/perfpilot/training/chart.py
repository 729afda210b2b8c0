"""The loss and reward curves of training runs, as a chart.

Each run's card (``perfpilot-training.json``) keeps the trainer's log: one entry per logging
step with ``loss`` and, for GRPO, the group's mean ``reward`` and its spread ``reward_std``.
``series`` picks those curves out of a log; ``write_chart`` draws them (matplotlib, the
``[eval]`` extra): the loss of every run in one panel, the reward of the runs that have one in a
second, so an SFT run followed by GRPO reads as one picture.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The log keys drawn, in panel order; trl's GRPO logs the group mean as ``reward``.
_CURVES = ("loss", "reward")


@dataclass(frozen=True)
class Curve:
    """One run's values of one logged quantity, by training step."""

    run: str
    name: str
    steps: tuple[int, ...]
    values: tuple[float, ...]
    spread: tuple[float, ...] | None = None  # reward_std, when logged with the reward


def series(run: str, log: Sequence[Mapping[str, Any]]) -> list[Curve]:
    """The loss and reward curves in a trainer log (entries without a step, such as the
    end-of-training summary, and non-numeric values are left out)."""
    out: list[Curve] = []
    for name in _CURVES:
        points = [(int(e["step"]), float(e[name]), e.get(f"{name}_std")) for e in log
                  if "step" in e and isinstance(e.get(name), int | float)]
        if not points:
            continue
        spreads = [float(s) for _, _, s in points if isinstance(s, int | float)]
        spread = tuple(spreads) if len(spreads) == len(points) else None
        out.append(Curve(run, name, tuple(p[0] for p in points), tuple(p[1] for p in points),
                         spread))
    return out


def read_run(path: Path) -> tuple[str, list[dict[str, Any]]]:
    """A run's label (its kind and folder name) and log, from a run folder or its card.

    Raises ``ValueError`` with a message for a folder without a readable card."""
    card_path = path / "perfpilot-training.json" if path.is_dir() else path
    try:
        card = json.loads(card_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{card_path}: not a training run's card ({exc})") from exc
    log = card.get("log") if isinstance(card, dict) else None
    if not isinstance(log, list):
        raise ValueError(f"{card_path}: the card has no training log")
    folder = card_path.parent.name
    return f"{card.get('kind', 'run')} ({folder})", [e for e in log if isinstance(e, dict)]


def write_chart(curves: Sequence[Curve], path: Path, title: str = "Training") -> Path:
    """Draw ``curves`` as PNG at ``path``: loss in the first panel, reward (with its spread
    in the group as a band) in the second when any run logged one."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    names = [n for n in _CURVES if any(c.name == n for c in curves)]
    if not names:
        raise ValueError("no loss or reward was logged: nothing to draw")
    fig, axes = plt.subplots(1, len(names), figsize=(6.0 * len(names), 4.0), squeeze=False)
    for ax, name in zip(axes[0], names, strict=True):
        for c in (c for c in curves if c.name == name):
            ax.plot(c.steps, c.values, marker="o" if len(c.steps) < 40 else None,
                    markersize=3, label=c.run)
            if c.spread is not None:
                ax.fill_between(c.steps, [v - s for v, s in zip(c.values, c.spread, strict=True)],
                                [v + s for v, s in zip(c.values, c.spread, strict=True)],
                                alpha=0.2)
        ax.set_xlabel("step")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylabel("mean reward (log speedup + shaping)" if name == "reward"
                      else "training loss")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
