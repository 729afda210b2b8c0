"""``perfpilot train ...``: collect, corpus, sft, dpo, reward, grpo, chart, accelerate-config."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from perfpilot.training.collect import Collected, from_eval, from_results, merge
from perfpilot.training.records import read_jsonl, strong, write_jsonl


def add_train_parser(sub: Any) -> None:
    """Register ``train`` and its subcommands on the CLI's subparsers."""
    p = sub.add_parser("train", help="train a planner from measured runtime (extra [train])")
    tsub = p.add_subparsers(dest="train_command", required=True)

    c = tsub.add_parser("collect", help="gather stored measurements into a JSONL dataset")
    c.add_argument("--workspace", type=Path, action="append", default=[],
                   help="a workspace whose .perfpilot/results/ to read (repeatable)")
    c.add_argument("--eval", type=Path, action="append", default=[],
                   help="an evaluation output folder (repeatable)")
    c.add_argument("--tasks", type=Path, help="the eval task folder, for function texts")
    c.add_argument("--pie", type=Path, action="append", default=[],
                   help="a PIE / PerfCoder JSONL file of slow/fast pairs (repeatable)")
    c.add_argument("--out", type=Path, required=True)

    g = tsub.add_parser("corpus", help="write generated training tasks as JSONL")
    g.add_argument("--out", type=Path, required=True)
    g.add_argument("--per-family", type=int, default=120)
    g.add_argument("--split", choices=("train", "heldout", "all"), default="all")
    g.add_argument("--seed", type=int, default=0)

    for name, what in (("sft", "supervised fine-tuning on the generated corpus"),
                       ("dpo", "preference optimisation on measured pairs"),
                       ("reward", "a reward model on measured pairs"),
                       ("grpo", "GRPO with the runner's measurement as reward")):
        t = tsub.add_parser(name, help=what)
        t.add_argument("--base", type=Path, required=True, help="model directory or .gguf")
        t.add_argument("--out", type=Path, required=True)
        t.add_argument("--steps", type=int, default=100)
        t.add_argument("--batch", type=int, default=4)
        t.add_argument("--lr", type=float, default=2e-4)
        t.add_argument("--no-lora", action="store_true", help="train all weights")
        t.add_argument("--max-length", type=int, default=2048)
        t.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
        t.add_argument("--resume", action="store_true", help="continue from the last checkpoint")
        if name in ("sft", "grpo"):
            t.add_argument("--per-family", type=int, default=40,
                           help="generated tasks per template family (train split only)")
        if name == "sft":
            t.add_argument("--with-code", action="store_true",
                           help="completions carry the fast code in [OPT/] after the plan")
        if name in ("dpo", "reward"):
            t.add_argument("--data", type=Path, required=True, help="a collected dataset")
        if name == "reward":
            t.add_argument("--on", choices=("plans", "candidates"), default="plans",
                           help="score plans, or candidates' code (the engine's ranker)")
        if name == "grpo":
            t.add_argument("--generations", type=int, default=4)
            t.add_argument("--vllm", action="store_true", help="generate with trl's vLLM")

    ch = tsub.add_parser("chart", help="draw the loss and reward curves of training runs")
    ch.add_argument("runs", type=Path, nargs="+",
                    help="run folders (or their perfpilot-training.json), in training order")
    ch.add_argument("--out", type=Path, required=True, help="the PNG to write")
    ch.add_argument("--title", default="Training")

    a = tsub.add_parser("accelerate-config", help="write an accelerate launch config")
    a.add_argument("--kind", choices=("cpu", "ddp", "deepspeed"), default="ddp")
    a.add_argument("--processes", type=int, default=1)
    a.add_argument("--zero-stage", type=int, choices=(1, 2, 3), default=2)
    a.add_argument("--out", type=Path, required=True)


def _say(text: str) -> None:
    print(text, file=sys.stderr)


def _collect(args: argparse.Namespace) -> int:
    from perfpilot.training.pie import import_pairs

    parts: list[Collected] = [from_results(ws) for ws in args.workspace]
    parts += [from_eval(out, args.tasks) for out in args.eval]
    parts += [import_pairs(p) for p in args.pie]
    got = merge(*parts)
    for message in got.skipped:
        _say(message)
    n = write_jsonl(args.out, got.records)
    signal = sum(1 for r in got.records if strong(r))
    _say(f"{n} records ({signal} strong enough for preference or reward data), "
         f"{len(got.skipped)} files skipped -> {args.out}")
    return 0


def _corpus(args: argparse.Namespace) -> int:
    from perfpilot.training.corpus import generate

    tasks = generate(args.per_family, args.seed, None if args.split == "all" else args.split)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as fh:
        for t in tasks:
            fh.write(json.dumps({"key": t.key, "family": t.family, "category": t.category,
                                 "name": t.name, "split": t.split, "openmp": t.openmp,
                                 "unit": t.unit, "fast": t.fast}) + "\n")
    _say(f"{len(tasks)} tasks -> {args.out}")
    return 0


def _chart(args: argparse.Namespace) -> int:
    from perfpilot.training.chart import Curve, read_run, series, write_chart

    curves: list[Curve] = []
    for run in args.runs:
        try:
            label, log = read_run(run)
        except ValueError as exc:
            _say(str(exc))
            return 2
        curves += series(label, log)
    try:
        write_chart(curves, args.out, args.title)
    except ImportError:
        _say("drawing needs matplotlib (pip install 'perfpilot[eval]')")
        return 2
    except ValueError as exc:
        _say(str(exc))
        return 2
    _say(f"{len(curves)} curves from {len(args.runs)} runs -> {args.out}")
    return 0


def _spec(args: argparse.Namespace) -> Any:
    from perfpilot.training.trainers import RunSpec

    return RunSpec(base=args.base, out=args.out, steps=args.steps, batch=args.batch,
                   learning_rate=args.lr, lora=not args.no_lora, max_length=args.max_length,
                   device=args.device, resume=args.resume)


def _train(args: argparse.Namespace) -> int:
    from perfpilot.training import trainers
    from perfpilot.training.corpus import generate

    spec = _spec(args)
    if args.train_command == "sft":
        from perfpilot.training.examples import sft_row

        rows = [sft_row(t, args.with_code) for t in generate(args.per_family, split="train")]
        card = trainers.sft(spec, rows, {"data": f"corpus train split, {len(rows)} tasks"})
    elif args.train_command in ("dpo", "reward"):
        from perfpilot.training.examples import preference_rows

        on = getattr(args, "on", "plans")
        pairs = preference_rows(list(read_jsonl(args.data)), on=on)
        if not pairs:
            _say(f"{args.data}: no preference pairs (strongly verified, measured records of "
                 f"one function with different {on} are needed)")
            return 2
        run = trainers.dpo if args.train_command == "dpo" else trainers.reward_model
        card = run(spec, pairs, extra={"data": str(args.data), "on": on})
    else:
        from perfpilot.training.runtime_reward import RuntimeReward, grpo_rows

        reward = RuntimeReward()
        rows = grpo_rows(generate(args.per_family, split="train"))
        card = trainers.grpo(spec, rows, reward, generations=args.generations,
                             use_vllm=args.vllm, extra={"data": "corpus train split"})
        (args.out / "rewards.json").write_text(json.dumps(reward.log, indent=1) + "\n",
                                               encoding="utf-8")
    _say(f"{card['kind']}: {card['steps']} steps, loss {card['first_loss']} -> "
         f"{card['last_loss']}; model in {args.out}")
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    """Run one ``train`` subcommand."""
    if args.train_command == "collect":
        return _collect(args)
    if args.train_command == "corpus":
        return _corpus(args)
    if args.train_command == "chart":
        return _chart(args)
    if args.train_command == "accelerate-config":
        from perfpilot.training.launch import write_accelerate_config

        write_accelerate_config(args.out, args.kind, args.processes, args.zero_stage)
        _say(f"accelerate config -> {args.out} (run: accelerate launch --config_file "
             f"{args.out} -m perfpilot.cli train ...)")
        return 0
    try:
        import peft  # noqa: F401
        import trl  # noqa: F401
    except ImportError as exc:
        _say(f"training needs the [train] extra (pip install 'perfpilot[train]'): {exc}")
        return 2
    return _train(args)
