"""``perfpilot train ...``: collect, corpus, sft, dpo, dpa, reward, grpo, rlpf, eval, recipe,
export, chart, accelerate-config."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from perfpilot.settings import RoleSettings, Settings, merge_settings, setting_choices
from perfpilot.training.collect import (
    Collected,
    from_eval,
    from_records,
    from_results,
    merge,
)
from perfpilot.training.records import read_jsonl, strong, write_jsonl

TRAINERS = (("sft", "supervised fine-tuning on the corpus and collected data"),
            ("dpo", "DPO on measured pairs (every pair counts the same)"),
            ("dpa", "DPA: DPO with each pair weighted by its measured runtime gap"),
            ("reward", "a reward model on measured pairs"),
            ("grpo", "GRPO with the runner's measurement as reward"),
            ("rlpf", "RLPF: policy optimisation against a reward model, runtime re-checked"))


def _optimizer_flags(p: argparse.ArgumentParser, default: str = "builtin") -> None:
    g = p.add_argument_group("the frozen optimizer (as the engine builds it)")
    g.add_argument("--optimizer", choices=setting_choices("backend"), default=default,
                   help="builtin: the rewriter restricted to the planned categories (plans "
                        "capped at 4 strategies); a model backend reads the whole plan")
    g.add_argument("--optimizer-model", default="", help="its model (directory, .gguf, name)")
    g.add_argument("--optimizer-endpoint", default="", help="its OpenAI-compatible base URL")
    g.add_argument("--optimizer-api-key-env", default="")
    g.add_argument("--optimizer-samples", type=int, default=1)
    g.add_argument("--optimizer-temperature", type=float, default=0.2)
    g.add_argument("--optimizer-max-tokens", type=int, default=1024)
    g.add_argument("--optimizer-device", default="cpu")
    g.add_argument("--runner-pairs", type=int, default=10, help="timed pairs per candidate")
    g.add_argument("--records", type=Path,
                   help="append a training record of every measurement here "
                        "(default: OUT/records)")


def _sampling_flags(p: argparse.ArgumentParser, beta: float) -> None:
    p.add_argument("--generations", type=int, default=4, help="samples per prompt")
    p.add_argument("--beta", type=float, default=beta, help="KL coefficient to the reference")
    p.add_argument("--temperature", type=float, default=1.0)
    p.add_argument("--max-completion", type=int, default=256, help="tokens per sampled plan")
    p.add_argument("--vllm", action="store_true", help="generate with trl's vLLM (GPU)")


def _knobs(t: argparse.ArgumentParser) -> None:
    t.add_argument("--base", type=Path, required=True, help="model directory or .gguf")
    t.add_argument("--out", type=Path, required=True)
    t.add_argument("--steps", type=int, default=100)
    t.add_argument("--epochs", type=float, help="passes over the data (instead of --steps)")
    t.add_argument("--batch", type=int, default=4, help="per-device batch")
    t.add_argument("--grad-accum", type=int, default=1, help="gradient accumulation steps")
    t.add_argument("--lr", type=float, default=2e-4)
    t.add_argument("--no-lora", action="store_true", help="train all weights")
    t.add_argument("--lora-rank", type=int, default=8)
    t.add_argument("--max-length", type=int, default=2048)
    t.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    t.add_argument("--dtype", choices=("auto", "bf16", "fp16", "fp32"), default="auto",
                   help="training precision (auto: bf16 where the GPU has it, fp32 on CPU)")
    t.add_argument("--save-dtype", choices=("bf16", "fp16", "fp32"), default="bf16",
                   help="precision of the saved planner")
    t.add_argument("--resume", action="store_true", help="continue from the last checkpoint")


def add_train_parser(sub: Any) -> None:
    """Register ``train`` and its subcommands on the CLI's subparsers."""
    p = sub.add_parser("train", help="train a planner from measured runtime (extra [train])")
    tsub = p.add_subparsers(dest="train_command", required=True)

    c = tsub.add_parser("collect", help="gather measurements into a JSONL dataset")
    c.add_argument("--workspace", type=Path, action="append", default=[],
                   help="a workspace whose .perfpilot/records/ and results/ to read")
    c.add_argument("--records", type=Path, action="append", default=[],
                   help="a records folder or JSONL file (what the engine and GRPO append)")
    c.add_argument("--eval", type=Path, action="append", default=[],
                   help="an evaluation output folder (repeatable)")
    c.add_argument("--tasks", type=Path, help="the eval task folder, for function texts")
    c.add_argument("--pie", type=Path, action="append", default=[],
                   help="a PIE / PerfCoder JSONL file of slow/fast pairs (repeatable)")
    c.add_argument("--out", type=Path, required=True)
    c.add_argument("--rows", type=Path, help="also write sft.jsonl, plan-pairs.jsonl and "
                                             "candidate-pairs.jsonl into this folder")

    g = tsub.add_parser("corpus", help="write generated training tasks as JSONL")
    g.add_argument("--out", type=Path, required=True)
    g.add_argument("--per-family", type=int, default=120)
    g.add_argument("--split", choices=("train", "heldout", "all"), default="all")
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--tasks-dir", type=Path,
                   help="also write them as perfpilot eval task folders here")

    for name, what in TRAINERS:
        t = tsub.add_parser(name, help=what)
        _knobs(t)
        if name in ("sft", "grpo", "rlpf"):
            t.add_argument("--per-family", type=int, default=40,
                           help="generated tasks per template family (train split; 0: none)")
        if name == "sft":
            t.add_argument("--data", type=Path, action="append", default=[],
                           help="collected records, PIE pairs or prompt/completion rows "
                                "(repeatable; mixed with the corpus)")
            t.add_argument("--with-code", action="store_true",
                           help="completions carry the fast code in [OPT/] after the plan")
            t.add_argument("--heldout-per-family", type=int, default=1,
                           help="held-out corpus tasks per family evaluated while training")
        if name in ("dpo", "dpa", "reward"):
            t.add_argument("--data", type=Path, required=True, help="a collected dataset")
            t.add_argument("--heldout-share", type=float, default=0.1,
                           help="share of functions whose pairs are held out for evaluation")
        if name in ("dpo", "dpa"):
            t.add_argument("--beta", type=float, default=0.1)
        if name == "reward":
            t.add_argument("--on", choices=("plans", "candidates"), default="plans",
                           help="score plans, or candidates' code (the engine's ranker)")
        if name in ("grpo", "rlpf"):
            _sampling_flags(t, 0.04 if name == "grpo" else 0.05)
            _optimizer_flags(t)
        if name == "rlpf":
            t.add_argument("--reward-model", type=Path, required=True,
                           help="what `perfpilot train reward --on plans` wrote")
            t.add_argument("--recheck", type=int, default=1,
                           help="best-scored samples per group the runner measures")

    e = tsub.add_parser("eval", help="measure a trained planner on held-out tasks through the "
                                     "engine, beside the untrained and builtin planners")
    e.add_argument("run", type=Path, help="a trained planner directory")
    e.add_argument("--tasks", type=Path, help="an evaluation task folder (with labels)")
    e.add_argument("--heldout", type=int, default=15,
                   help="generated held-out tasks (one family after another; 0: none)")
    e.add_argument("--base", type=Path,
                   help="the untrained model (default: the one the run was first trained from)")
    e.add_argument("--measure", type=int, default=5, help="tasks whose plans are measured")
    e.add_argument("--max-new-tokens", type=int, default=160)
    _optimizer_flags(e)

    r = tsub.add_parser("recipe", help="SFT, GRPO with a model optimizer, held-out eval "
                                       "(one GPU, several under accelerate launch, or a CPU)")
    r.add_argument("--base", type=Path, required=True)
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--data", type=Path, action="append", default=[])
    r.add_argument("--tasks", type=Path, help="an evaluation task folder to measure too")
    r.add_argument("--sft-steps", type=int, default=2000)
    r.add_argument("--grpo-steps", type=int, default=300)
    r.add_argument("--per-family", type=int, default=120)
    r.add_argument("--grpo-per-family", type=int, default=8)
    r.add_argument("--batch", type=int, default=8)
    r.add_argument("--grad-accum", type=int, default=2)
    r.add_argument("--sft-lr", type=float, default=2e-4)
    r.add_argument("--grpo-lr", type=float, default=1e-5)
    r.add_argument("--lora-rank", type=int, default=16)
    r.add_argument("--max-length", type=int, default=2048)
    r.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    r.add_argument("--dtype", choices=("auto", "bf16", "fp16", "fp32"), default="auto")
    r.add_argument("--save-dtype", choices=("bf16", "fp16", "fp32"), default="bf16")
    r.add_argument("--heldout", type=int, default=30)
    r.add_argument("--measure", type=int, default=15)
    r.add_argument("--max-new-tokens", type=int, default=256)
    _sampling_flags(r, 0.04)
    _optimizer_flags(r, default="local")

    x = tsub.add_parser("export", help="write a trained planner as GGUF (llama.cpp, Ollama)")
    x.add_argument("run", type=Path)
    x.add_argument("--out", type=Path, required=True, help="the .gguf file to write")
    x.add_argument("--outtype", choices=("f32", "f16", "bf16"), default="f16")

    ch = tsub.add_parser("chart", help="draw the loss and reward curves of training runs")
    ch.add_argument("runs", type=Path, nargs="+",
                    help="run folders (or their perfpilot-training.json), in training order")
    ch.add_argument("--out", type=Path, required=True, help="the PNG to write")
    ch.add_argument("--title", default="Training")

    a = tsub.add_parser("accelerate-config", help="write an accelerate launch config")
    a.add_argument("--kind", choices=("cpu", "ddp", "deepspeed"), default="ddp")
    a.add_argument("--processes", type=int, default=1)
    a.add_argument("--zero-stage", type=int, choices=(1, 2, 3), default=2)
    a.add_argument("--grad-accum", type=int, default=1)
    a.add_argument("--out", type=Path, required=True)


def _say(text: str) -> None:
    print(text, file=sys.stderr)


def _collect(args: argparse.Namespace) -> int:
    from perfpilot.training.pie import import_pairs

    parts: list[Collected] = []
    for ws in args.workspace:
        parts += [from_records(ws), from_results(ws)]
    parts += [from_records(r) for r in args.records]
    parts += [from_eval(out, args.tasks) for out in args.eval]
    parts += [import_pairs(p) for p in args.pie]
    got = merge(*parts)
    for message in got.skipped:
        _say(message)
    n = write_jsonl(args.out, got.records)
    signal = sum(1 for r in got.records if strong(r))
    _say(f"{n} records ({signal} strong enough for preference or reward data), "
         f"{len(got.skipped)} files or lines skipped -> {args.out}")
    if args.rows is not None:
        from perfpilot.training.examples import preference_rows, record_sft_rows

        records = list(got.records)
        made = {"sft.jsonl": record_sft_rows(records),
                "plan-pairs.jsonl": preference_rows(records, on="plans"),
                "candidate-pairs.jsonl": preference_rows(records, on="candidates")}
        args.rows.mkdir(parents=True, exist_ok=True)
        for name, rows in made.items():
            with (args.rows / name).open("w", encoding="utf-8") as fh:
                for row in rows:
                    fh.write(json.dumps(row) + "\n")
        _say(", ".join(f"{len(v)} {k}" for k, v in made.items()) + f" -> {args.rows}")
    return 0


def _corpus(args: argparse.Namespace) -> int:
    from perfpilot.training.corpus import generate, write_tasks

    tasks = generate(args.per_family, args.seed, None if args.split == "all" else args.split)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as fh:
        for t in tasks:
            fh.write(json.dumps({"key": t.key, "family": t.family, "category": t.category,
                                 "name": t.name, "split": t.split, "openmp": t.openmp,
                                 "unit": t.unit, "fast": t.fast}) + "\n")
    if args.tasks_dir is not None:
        write_tasks(tasks, args.tasks_dir)
        _say(f"{len(tasks)} task folders -> {args.tasks_dir}")
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


def optimizer_role(args: argparse.Namespace) -> RoleSettings:
    """The frozen optimizer's role settings from the flags (validated as settings are)."""
    settings = merge_settings(Settings(), {
        "optimizer": {"backend": args.optimizer, "model": args.optimizer_model,
                      "endpoint": args.optimizer_endpoint,
                      "api_key_env": args.optimizer_api_key_env,
                      "samples": args.optimizer_samples,
                      "temperature": args.optimizer_temperature,
                      "max_tokens": args.optimizer_max_tokens,
                      "device": args.optimizer_device}})
    return settings.optimizer


def _spec(args: argparse.Namespace) -> Any:
    from perfpilot.training.trainers import RunSpec

    return RunSpec(base=args.base, out=args.out, steps=args.steps, batch=args.batch,
                   learning_rate=args.lr, lora=not args.no_lora, lora_rank=args.lora_rank,
                   max_length=args.max_length, device=args.device, dtype=args.dtype,
                   resume=args.resume, epochs=args.epochs, grad_accum=args.grad_accum,
                   save_dtype=args.save_dtype)


def _reward(args: argparse.Namespace, records: Path | None) -> Any:
    from perfpilot.runner.values import Tuning
    from perfpilot.settings import RunnerSettings
    from perfpilot.training.runtime_reward import RuntimeReward

    return RuntimeReward(optimizer=optimizer_role(args),
                         settings=RunnerSettings(pairs=args.runner_pairs, callgrind=False),
                         tuning=Tuning(profiles=(0, 1, 2), seeds_per_profile=1),
                         records=records)


def _sampling(args: argparse.Namespace) -> Any:
    from perfpilot.training.trainers import Sampling

    return Sampling(generations=args.generations, max_completion=args.max_completion,
                    temperature=args.temperature, beta=args.beta, use_vllm=args.vllm)


def _pairs(args: argparse.Namespace, on: str) -> tuple[list[Any], list[Any]] | None:
    from perfpilot.training.examples import preference_rows
    from perfpilot.training.sft_data import split_heldout

    pairs = preference_rows(list(read_jsonl(args.data)), on=on)
    if not pairs:
        _say(f"{args.data}: no preference pairs (strongly verified, measured records of "
             f"one function with different {on} are needed)")
        return None
    return split_heldout(pairs, args.heldout_share)


def _train(args: argparse.Namespace) -> int:
    from perfpilot.training import trainers
    from perfpilot.training.corpus import generate

    spec = _spec(args)
    command = args.train_command
    if command == "sft":
        from perfpilot.training.examples import sft_row
        from perfpilot.training.sft_data import load_sft

        rows = [sft_row(t, args.with_code) for t in generate(args.per_family, split="train")] \
            if args.per_family > 0 else []
        loaded = load_sft(args.data, args.with_code)
        for message in loaded.messages:
            _say(message)
        rows += list(loaded.rows)
        if not rows:
            _say("no SFT rows: give --data or a positive --per-family")
            return 2
        held = [sft_row(t, args.with_code)
                for t in generate(args.heldout_per_family, split="heldout")] \
            if args.heldout_per_family > 0 else []
        card = trainers.sft(spec, rows, {"data": f"corpus train split ({args.per_family} per "
                                                 f"family) + {len(args.data)} files, "
                                                 f"{len(rows)} rows"}, eval_rows=held)
    elif command in ("dpo", "dpa", "reward"):
        on = getattr(args, "on", "plans")
        split = _pairs(args, on)
        if split is None:
            return 2
        train, held = split
        extra = {"data": str(args.data), "on": on, "heldout_pairs": len(held)}
        if command == "reward":
            card = trainers.reward_model(spec, train, extra, eval_rows=held)
        else:
            run = trainers.dpo if command == "dpo" else trainers.dpa
            card = run(spec, train, beta=args.beta, extra=extra, eval_rows=held)
    else:
        from perfpilot.training.runtime_reward import grpo_rows

        reward = _reward(args, args.records or args.out / "records")
        rows = grpo_rows(generate(args.per_family, split="train"))
        try:
            if command == "grpo":
                card = trainers.grpo(spec, rows, reward, _sampling(args),
                                     {"data": "corpus train split",
                                      "optimizer": reward.role.backend})
                log: list[Any] = reward.log
            else:
                from perfpilot.training.rlpf import ModelReward

                judge = ModelReward(args.reward_model, reward, args.generations, args.recheck)
                card = trainers.rlpf(spec, rows, judge, _sampling(args),
                                     {"data": "corpus train split",
                                      "reward_model": str(args.reward_model)})
                log = judge.log
        finally:
            reward.close()
        if (args.out / "config.json").exists():
            (args.out / "rewards.json").write_text(json.dumps(log, indent=1) + "\n",
                                                   encoding="utf-8")
    _say(f"{card['kind']}: {card['steps']} steps, loss {card['first_loss']} -> "
         f"{card['last_loss']}; model in {args.out}")
    return 0


def _eval(args: argparse.Namespace) -> int:
    from perfpilot.training.evaluate import builtin_plans, evaluate, model_plans
    from perfpilot.training.model_io import write_card
    from perfpilot.training.recipe import held_out_tasks

    card_path = args.run / "perfpilot-training.json"
    try:
        card = json.loads(card_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        _say(f"{card_path}: not a trained planner's card ({exc})")
        return 2
    from perfpilot.training.model_io import root_base

    base = args.base or root_base(args.run) or Path(str(card.get("base", "")))
    tasks = held_out_tasks(args.heldout, args.tasks)
    if not tasks:
        _say("no tasks: give --tasks or a positive --heldout")
        return 2
    plans: dict[str, list[str]] = {}
    if base.exists():
        plans["untrained"] = model_plans(base, tasks, args.max_new_tokens)
    else:
        _say(f"{base}: the untrained model is not here; left out")
    plans[f"trained ({card.get('kind', 'run')})"] = model_plans(args.run, tasks,
                                                                args.max_new_tokens)
    plans["builtin"] = builtin_plans(tasks)
    reward = _reward(args, args.records or args.run / "records")
    try:
        card["heldout"] = evaluate(plans, tasks, reward, args.measure)
    finally:
        reward.close()
    write_card(args.run, card)
    from perfpilot.training.evaluate import markdown_table

    print(markdown_table(card["heldout"]), end="")
    return 0


def _recipe(args: argparse.Namespace) -> int:
    from perfpilot.training.recipe import Recipe, run

    role = optimizer_role(args)
    if role.backend == "local" and not role.model:
        role = replace(role, model=str(args.base))
    recipe = Recipe(base=args.base, out=args.out, optimizer=role, data=tuple(args.data),
                    per_family=args.per_family, sft_steps=args.sft_steps,
                    sft_lr=args.sft_lr, grpo_steps=args.grpo_steps, grpo_lr=args.grpo_lr,
                    grpo_per_family=args.grpo_per_family, batch=args.batch,
                    grad_accum=args.grad_accum, generations=args.generations,
                    max_completion=args.max_completion, temperature=args.temperature,
                    beta=args.beta, lora_rank=args.lora_rank, max_length=args.max_length,
                    device=args.device, dtype=args.dtype, save_dtype=args.save_dtype,
                    use_vllm=args.vllm, heldout=args.heldout, measure=args.measure,
                    tasks=args.tasks, runner_pairs=args.runner_pairs,
                    max_new_tokens=args.max_new_tokens)
    report = run(recipe, _say)
    if "heldout" in report:
        from perfpilot.training.evaluate import markdown_table

        print(markdown_table(report["heldout"]), end="")
    return 0


def _export(args: argparse.Namespace) -> int:
    from perfpilot.training.export_gguf import ExportError, export_gguf

    try:
        path = export_gguf(args.run, args.out, args.outtype)
    except ExportError as exc:
        _say(str(exc))
        return 2
    _say(f"GGUF -> {path} (llama.cpp: llama-cli -m {path}; Ollama: a Modelfile with "
         f"FROM {path})")
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    """Run one ``train`` subcommand."""
    simple = {"collect": _collect, "corpus": _corpus, "chart": _chart}
    if args.train_command in simple:
        return simple[args.train_command](args)
    if args.train_command == "accelerate-config":
        from perfpilot.training.launch import write_accelerate_config

        write_accelerate_config(args.out, args.kind, args.processes, args.zero_stage,
                                args.grad_accum)
        _say(f"accelerate config -> {args.out} (run: accelerate launch --config_file "
             f"{args.out} -m perfpilot train ...)")
        return 0
    if args.train_command == "export":
        return _export(args)
    try:
        import peft  # noqa: F401
        import trl  # noqa: F401
    except ImportError as exc:
        _say(f"training needs the [train] extra (pip install 'perfpilot[train]'): {exc}")
        return 2
    from perfpilot.training.measure_pool import leave

    try:
        if args.train_command == "eval":
            return _eval(args)
        if args.train_command == "recipe":
            return _recipe(args)
        return _train(args)
    finally:
        leave()
