"""Held-out scores of a planner: does its plan name the category the task's template needs?

Per task the label is the template's category; a plan's categories are compared with it.
Recall is the share of tasks whose plan names the label; precision the share of named
categories that were the label (micro-averaged over tasks).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfpilot.strategy.plan_format import SUGG_CLOSE, parse_plan
from perfpilot.training.corpus import CorpusTask
from perfpilot.training.examples import builtin_plan, prompt


@dataclass(frozen=True)
class Scores:
    """Category recall and precision over a set of tasks, and how many plans parsed."""

    tasks: int
    recall: float
    precision: float
    parsed: int


def score_plans(tasks: Sequence[CorpusTask], plans: Sequence[Sequence[int]]) -> Scores:
    """Scores of category-id lists against the tasks' labels."""
    hits = named = right = parsed = 0
    for task, cats in zip(tasks, plans, strict=True):
        unique = set(cats)
        parsed += bool(unique)
        hits += task.category in unique
        named += len(unique)
        right += task.category in unique
    n = max(len(tasks), 1)
    return Scores(len(tasks), hits / n, right / named if named else 0.0, parsed)


def builtin_scores(tasks: Sequence[CorpusTask], limit: int = 3) -> Scores:
    """The builtin analyser as a planner."""
    return score_plans(tasks, [[s.category.id for s in builtin_plan(t.site(), limit).strategies]
                               for t in tasks])


def model_plan_texts(model_dir: Path, tasks: Sequence[CorpusTask], max_new_tokens: int = 160,
                     gguf: str | None = None) -> list[str]:
    """Greedy plan-only generations of a causal LM for each task's planner prompt."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    kwargs: dict[str, Any] = {"local_files_only": True}
    if gguf:
        kwargs["gguf_file"] = gguf
    tok: Any = AutoTokenizer.from_pretrained(model_dir, **kwargs)
    model: Any = AutoModelForCausalLM.from_pretrained(model_dir, **kwargs)
    model.train(False)
    out: list[str] = []
    for task in tasks:
        ids: Any = tok.apply_chat_template(prompt(task.site()), add_generation_prompt=True,
                                           return_tensors="pt", return_dict=True)
        with torch.no_grad():
            gen = model.generate(**ids, max_new_tokens=max_new_tokens, do_sample=False,
                                 stop_strings=[SUGG_CLOSE], tokenizer=tok)
        out.append(tok.decode(gen[0, ids["input_ids"].shape[1]:], skip_special_tokens=True))
    return out


def plan_categories(texts: Sequence[str]) -> list[list[int]]:
    """The category ids each plan text names (none for a text that is not a plan)."""
    return [[s.category.id for s in parse_plan(t, "model").strategies] for t in texts]
