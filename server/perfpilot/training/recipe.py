"""The whole training recipe in one command: SFT, GRPO with a model optimizer, held-out eval.

``perfpilot train recipe`` (and ``make train-gpu BASE=DIR``) runs, from one base model:

1. SFT (LoRA) on the generated corpus's train split (plus any ``--data``), evaluating on the
   held-out families while it trains;
2. GRPO from the SFT model, the frozen optimizer a model (by default the base model itself, in
   both roles, as PerfCoder) whose code the runner verifies and times;
3. the held-out evaluation of the untrained, SFT, SFT+GRPO and builtin planners (parse rate,
   category recall and precision, measured speedup), written into the GRPO model's card and
   ``OUT/report.json`` / ``report.md``.

The same command runs on a CPU (toy sizes), one GPU, or several under ``accelerate launch``:
each trainer gathers before saving and only the main process writes; measuring happens on
rank 0 alone (``measure_pool``); the evaluation runs on the main process.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from perfpilot.runner.values import Tuning
from perfpilot.settings import RoleSettings, RunnerSettings
from perfpilot.training.measure_pool import world


@dataclass(frozen=True)
class Recipe:
    """Sizes and knobs of one recipe run (the defaults are GPU-sized)."""

    base: Path
    out: Path
    optimizer: RoleSettings = field(default_factory=RoleSettings)
    data: tuple[Path, ...] = ()
    per_family: int = 120
    sft_steps: int = 2000
    sft_lr: float = 2e-4
    grpo_steps: int = 300
    grpo_lr: float = 1e-5
    grpo_per_family: int = 8
    batch: int = 8
    grad_accum: int = 2
    generations: int = 8
    max_completion: int = 256
    temperature: float = 1.0
    beta: float = 0.04
    lora_rank: int = 16
    max_length: int = 2048
    device: str = "auto"
    dtype: str = "auto"
    save_dtype: str = "bf16"
    use_vllm: bool = False
    heldout: int = 30
    measure: int = 15
    tasks: Path | None = None  # an evaluation task folder, measured beside the held-out tasks
    runner_pairs: int = 10
    max_new_tokens: int = 256


def held_out_tasks(count: int, tasks: Path | None = None) -> list[Any]:
    """``count`` generated held-out tasks, one family after another (so a short list covers
    every category), then the tasks of an evaluation folder."""
    from perfpilot.training.corpus import generate
    from perfpilot.training.evaluate import from_corpus, from_task_dir

    pool = generate(4, split="heldout")
    families = list(dict.fromkeys(t.family for t in pool))
    rounds = [[t for t in pool if t.family == f] for f in families]
    spread = [r[k] for k in range(4) for r in rounds if k < len(r)][:count]
    return from_corpus(spread) + (from_task_dir(tasks) if tasks is not None else [])


def run(r: Recipe, say: Callable[[str], None]) -> dict[str, Any]:
    """Run the recipe; returns the report (also written to ``r.out/report.json``)."""
    from perfpilot.training.corpus import generate
    from perfpilot.training.examples import sft_row
    from perfpilot.training.runtime_reward import RuntimeReward, grpo_rows
    from perfpilot.training.sft_data import load_sft
    from perfpilot.training.trainers import RunSpec, Sampling, grpo, sft

    report: dict[str, Any] = {"recipe": {k: str(v) for k, v in asdict(r).items()}}
    main = world()[0] == 0

    def save() -> None:
        if main:
            r.out.mkdir(parents=True, exist_ok=True)
            (r.out / "report.json").write_text(json.dumps(report, indent=2) + "\n",
                                               encoding="utf-8")

    t0 = time.monotonic()
    rows = [sft_row(t) for t in generate(r.per_family, split="train")]
    if r.data:
        loaded = load_sft(r.data)
        rows += list(loaded.rows)
        for message in loaded.messages:
            say(message)
    eval_rows = [sft_row(t) for t in generate(1, split="heldout")]
    spec = RunSpec(base=r.base, out=r.out / "sft", steps=r.sft_steps, batch=r.batch,
                   learning_rate=r.sft_lr, lora_rank=r.lora_rank, max_length=r.max_length,
                   device=r.device, dtype=r.dtype, grad_accum=r.grad_accum,
                   save_dtype=r.save_dtype)
    card = sft(spec, rows, {"data": f"corpus train split + {len(r.data)} files"},
               eval_rows=eval_rows)
    report["sft"] = {"rows": len(rows), "seconds": round(time.monotonic() - t0),
                     "first_loss": card["first_loss"], "last_loss": card["last_loss"],
                     "heldout_loss": card["heldout_loss"]}
    save()
    say(f"SFT: loss {card['first_loss']} -> {card['last_loss']}, held-out "
        f"{card['heldout_loss']}")

    t0 = time.monotonic()
    runner = RunnerSettings(pairs=r.runner_pairs, callgrind=False)
    tuning = Tuning(profiles=(0, 1, 2), seeds_per_profile=1)
    reward = RuntimeReward(optimizer=r.optimizer, settings=runner, tuning=tuning,
                           records=r.out / "records")
    sampling = Sampling(generations=r.generations, max_completion=r.max_completion,
                        temperature=r.temperature, beta=r.beta, use_vllm=r.use_vllm)
    g_spec = RunSpec(base=r.out / "sft", out=r.out / "grpo", steps=r.grpo_steps,
                     batch=r.batch, learning_rate=r.grpo_lr, lora_rank=r.lora_rank,
                     max_length=r.max_length, device=r.device, dtype=r.dtype,
                     grad_accum=r.grad_accum, save_dtype=r.save_dtype)
    try:
        g_card = grpo(g_spec, grpo_rows(generate(r.grpo_per_family, split="train", seed=1)),
                      reward, sampling, {"data": "corpus train split",
                                         "optimizer": asdict(r.optimizer)})
        curve = [h["reward"] for h in g_card["log"] if "reward" in h]
        report["grpo"] = {"seconds": round(time.monotonic() - t0), "reward_curve": curve,
                          "measured": len(reward.verdicts),
                          "steps_per_minute": round(60 * r.grpo_steps
                                                    / max(1.0, time.monotonic() - t0), 2)}
        if main:
            (r.out / "grpo" / "rewards.json").write_text(json.dumps(reward.log, indent=1)
                                                         + "\n", encoding="utf-8")
        save()
        if not main:
            return report
        report["heldout"] = evaluate_run(r, reward)
    finally:
        reward.close()
    from perfpilot.training.model_io import write_card

    g_card["heldout"] = report["heldout"]
    write_card(r.out / "grpo", g_card)
    save()
    from perfpilot.training.evaluate import markdown_table

    (r.out / "report.md").write_text(markdown_table(report["heldout"]), encoding="utf-8")
    return report


def evaluate_run(r: Recipe, reward: Any) -> dict[str, Any]:
    """The held-out evaluation of the untrained, SFT, SFT+GRPO and builtin planners."""
    from perfpilot.training.evaluate import builtin_plans, evaluate, model_plans

    tasks = held_out_tasks(r.heldout, r.tasks)
    plans = {"untrained": model_plans(r.base, tasks, r.max_new_tokens),
             "sft": model_plans(r.out / "sft", tasks, r.max_new_tokens),
             "sft+grpo": model_plans(r.out / "grpo", tasks, r.max_new_tokens),
             "builtin": builtin_plans(tasks)}
    return evaluate(plans, tasks, reward, r.measure)
