"""RLPF's reward: a reward model trained on measured runtimes, re-checked by the runner.

Nichols et al. optimise the policy with PPO against a reward model fitted to fast/slow pairs,
with a KL penalty to the reference model. Here the reward model is the one ``perfpilot train
reward --on plans`` wrote; it scores each sampled plan. A learned reward can be gamed, so the
best-scored samples of every group are also measured through the frozen optimizer and the
runner (``RuntimeReward``): a top sample whose measurement does not confirm a gain (the engine
would keep the original, or a candidate failed) loses its score and gets the group's lowest
one, so the policy cannot climb on the reward model's blind spots. A sample the runner could not
judge (noisy, weakly verified) keeps the reward model's score. ``log`` keeps, per re-checked
sample, the score, the measured reward and whether they agreed.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from perfpilot.training.measure_pool import pooled
from perfpilot.training.runtime_reward import RuntimeReward


class ModelReward:
    """A trl reward function: the reward model's score, the runner re-checking the top
    ``recheck`` samples of each group of ``generations``."""

    __name__ = "rlpf_reward"

    def __init__(self, model_dir: Path, measured: RuntimeReward | None, generations: int,
                 recheck: int = 1) -> None:
        from perfpilot.llm.reward_scorer import RewardScorer

        self.scorer = RewardScorer(model_dir)
        self.measured = measured
        self.generations = max(1, generations)
        self.recheck = max(0, recheck)
        self.log: list[dict[str, Any]] = []

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], **columns: Any
                 ) -> list[float | None]:
        texts = [c[-1]["content"] if isinstance(c, list) else str(c) for c in completions]
        items = list(zip(prompts, texts, columns["unit"], columns["name"], strict=True))
        return pooled(items, self.rewards)

    def rewards(self, items: list[tuple[Any, str, str, str]]) -> list[float | None]:
        """Rewards of (prompt, completion, unit, function name) items, in groups of
        ``generations`` consecutive items (trl's layout)."""
        scores = [self.scorer.score(list(p), [t])[0] for p, t, _u, _n in items]
        out: list[float | None] = list(scores)
        if self.measured is None or self.recheck == 0:
            return out
        for start in range(0, len(items), self.generations):
            group = list(range(start, min(start + self.generations, len(items))))
            top = sorted(group, key=lambda i: scores[i], reverse=True)[:self.recheck]
            checks = self.measured.details([(items[i][2], items[i][3], items[i][1])
                                            for i in top])
            low = min(scores[i] for i in group)
            for i, check in zip(top, checks, strict=True):
                # Confirmed: the engine would apply a measured-faster candidate, and no
                # candidate failed. Unjudged (None): the score stands.
                agreed = check.reward is None or (
                    "chosen" in check.parts and "incorrect" not in check.parts.get(
                        "verdicts", ()))
                if not agreed:
                    out[i] = low
                self.log.append({"score": scores[i], "measured": check.reward,
                                 "outcome": check.parts.get("outcome"), "agreed": agreed,
                                 "reward": out[i]})
        return out
