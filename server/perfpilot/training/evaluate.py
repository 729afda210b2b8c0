"""Held-out evaluation of planners: do their plans parse, name the right categories, and lead
the frozen optimizer to code the runner measures faster?

For each task (a generated held-out task, or an evaluation task folder with ``labels``) each
planner writes a plan: a model greedily, from the planner prompt the editor sends; the builtin
planner from its analyser. Scores: the share of plans that parse, category recall (the share
of tasks whose plan names a labelled category) and precision (the share of named categories
that were labelled). Measured: each plan goes through the engine as in GRPO's reward
(``RuntimeReward``: the optimizer role's candidates, the runner's verdicts, the engine's
choice); a task counts the chosen candidate's speedup, or 1.00x where the engine keeps the
original (no plan, no candidate, nothing measured faster, a failure). The figures go into the
run's model card (``perfpilot train eval``) and into ``make train-demo``'s report.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from perfpilot.code.locate import function_by_name
from perfpilot.code.site import FunctionSite, Language
from perfpilot.prompting.context import unit_context
from perfpilot.prompting.prompts import planner_messages
from perfpilot.strategy.plan_format import SUGG_CLOSE, parse_plan, render_plan
from perfpilot.training.runtime_reward import RuntimeReward

OPTIMIZED = 1.10  # as in perfpilot eval: a task counts as optimized at 1.10x or more


@dataclass(frozen=True)
class HeldOutTask:
    """One function to plan for, with the categories a good plan names."""

    name: str
    unit: str
    function: str
    labels: tuple[str, ...]
    language: Language = "cpp"
    spec: Path | None = None
    source: Path | None = None

    def site(self) -> FunctionSite:
        """The function, located in its unit."""
        uri = self.source.resolve().as_uri() if self.source is not None else ""
        return function_by_name(self.unit, self.language, self.function, uri=uri)


def from_corpus(tasks: Sequence[Any]) -> list[HeldOutTask]:
    """Held-out tasks from generated corpus tasks (labelled with the template's category)."""
    from perfpilot.training.corpus import label

    return [HeldOutTask(t.key, t.unit, t.name, (label(t),)) for t in tasks]


def from_task_dir(root: Path, limit: int = 0) -> list[HeldOutTask]:
    """Held-out tasks from an evaluation task folder (``perfpilot eval``'s format)."""
    from perfpilot.evaluation.tasks import load_tasks

    out = [HeldOutTask(t.name, t.source.read_text(encoding="utf-8"), t.function, t.labels,
                       t.language, t.spec, t.source) for t in load_tasks(root)]
    return out[:limit] if limit else out


def prompt_of(site: FunctionSite) -> list[dict[str, str]]:
    """The planner's chat messages for ``site`` (what the editor sends)."""
    return [dict(m) for m in planner_messages(site, unit_context(site))]


def model_plans(model: Path, tasks: Sequence[HeldOutTask], max_new_tokens: int = 160
                ) -> list[str]:
    """Greedy plan-only generations of a causal LM (a directory, or a ``.gguf`` file) for each
    task's planner prompt."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    kwargs: dict[str, Any] = {"local_files_only": True}
    where = model
    if model.suffix == ".gguf":
        where, kwargs["gguf_file"] = model.parent, model.name
    tok: Any = AutoTokenizer.from_pretrained(where, **kwargs)
    lm: Any = AutoModelForCausalLM.from_pretrained(where, dtype=torch.float32, **kwargs)
    lm.train(False)
    out: list[str] = []
    for task in tasks:
        ids: Any = tok.apply_chat_template(prompt_of(task.site()), add_generation_prompt=True,
                                           return_tensors="pt", return_dict=True)
        with torch.no_grad():
            gen = lm.generate(**ids, max_new_tokens=max_new_tokens, do_sample=False,
                              stop_strings=[SUGG_CLOSE], tokenizer=tok,
                              pad_token_id=tok.pad_token_id or tok.eos_token_id)
        out.append(tok.decode(gen[0, ids["input_ids"].shape[1]:], skip_special_tokens=True))
    return out


def builtin_plans(tasks: Sequence[HeldOutTask], limit: int = 4) -> list[str]:
    """The builtin analyser's plans, as text."""
    from perfpilot.training.examples import builtin_plan

    return [render_plan(builtin_plan(t.site(), limit)) for t in tasks]


@dataclass(frozen=True)
class PlanScores:
    """How a planner's plans read against the tasks' labels."""

    tasks: int
    parsed: int
    recall: float
    precision: float


def plan_scores(tasks: Sequence[HeldOutTask], texts: Sequence[str]) -> PlanScores:
    """Parse rate, category recall and precision of plan texts against the labels."""
    parsed = hits = named = right = 0
    for task, text in zip(tasks, texts, strict=True):
        cats = {s.category.name for s in parse_plan(text, "model").strategies}
        parsed += bool(cats)
        hits += bool(cats & set(task.labels))
        named += len(cats)
        right += len(cats & set(task.labels))
    n = max(len(tasks), 1)
    return PlanScores(len(tasks), parsed, hits / n, right / named if named else 0.0)


def measured_scores(reward: RuntimeReward, tasks: Sequence[HeldOutTask],
                    texts: Sequence[str]) -> dict[str, Any]:
    """What the engine makes of each plan: the chosen candidate's measured speedup (1.00x
    where it keeps the original), the mean, geometric mean and share optimized."""

    async def run() -> list[Any]:
        # One task at a time: the figures are the runner's, taken on quiet cores.
        return [await reward.score_site(t.site(), x, t.spec, t.source)
                for t, x in zip(tasks, texts, strict=True)]

    scored = reward.run(run()) if tasks else []
    speedups: list[float] = []
    outcomes: list[str] = []
    for s in scored:
        sp = s.parts.get("speedup")
        speedups.append(float(sp) if isinstance(sp, int | float) and sp > 0 else 1.0)
        words = "/".join(s.parts.get("verdicts", ())) or str(s.parts.get("outcome", ""))
        outcomes.append(words if s.reward is not None else f"{words} (unscorable)")
    n = max(1, len(speedups))
    return {"tasks": len(speedups), "mean_speedup": sum(speedups) / n,
            "geomean_speedup": math.exp(sum(math.log(s) for s in speedups) / n),
            "optimized": sum(s >= OPTIMIZED for s in speedups) / n,
            "speedups": [round(s, 3) for s in speedups], "outcomes": outcomes}


def evaluate(plans: Mapping[str, Sequence[str]], tasks: Sequence[HeldOutTask],
             reward: RuntimeReward | None, measure: int) -> dict[str, Any]:
    """Scores of each planner's plan texts, and measured figures on the first ``measure``
    tasks (none without a reward)."""
    out: dict[str, Any] = {}
    for name, texts in plans.items():
        entry: dict[str, Any] = {**asdict(plan_scores(tasks, texts)),
                                 "examples": list(texts[:2])}
        if reward is not None and measure > 0:
            entry["measured"] = measured_scores(reward, tasks[:measure], texts[:measure])
        out[name] = entry
    what = f"{len(tasks)} held-out tasks"
    if reward is not None and measure > 0:
        role = reward.role
        what += (f"; measured: the first {measure} through the engine with the "
                 f"{role.backend} optimizer{f' ({role.model})' if role.model else ''}")
    return {"what": what, "tasks": len(tasks), "planners": out}


def markdown_table(heldout: dict[str, Any]) -> str:
    """The held-out figures as a markdown table, one row a planner."""
    rows = ["| Planner | Plans parsed | Category recall | Precision | Mean speedup | Geomean | "
            "Optimized |", "|---|---|---|---|---|---|---|"]
    for name, s in heldout.get("planners", {}).items():
        m = s.get("measured")
        figures = (f"{m['mean_speedup']:.2f}x | {m['geomean_speedup']:.2f}x | "
                   f"{100 * m['optimized']:.0f}% ({m['tasks']} tasks)" if m else "- | - | -")
        rows.append(f"| {name} | {s['parsed']}/{s['tasks']} | {s['recall']:.2f} | "
                    f"{s['precision']:.2f} | {figures} |")
    return "\n".join(rows) + "\n"
