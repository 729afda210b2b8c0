"""The verifier against subtly wrong candidates (tests/verification_corpus.py), end to end.

Every wrong candidate must be rejected (``incorrect``) or, at worst, reported as weakly
verified; at least 95% must be rejected. Every correct rewrite must pass validation: a correct
rewrite blamed for invalid inputs is as bad as a wrong one let through.
"""

from __future__ import annotations

import asyncio
import shutil
from dataclasses import dataclass

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.engine.settings import RunnerSettings
from perfpilot.progress import JobContext
from perfpilot.runner.measure import verify_and_measure
from perfpilot.runner.values import Tuning, Verdict
from verification_corpus import CORPUS, wrong_count

pytestmark = pytest.mark.skipif(shutil.which("g++") is None or shutil.which("gcc") is None,
                                reason="g++/gcc not installed")

# Validation is what is under test: timing is cut short.
TUNING = Tuning(target_sample_s=0.0005, budget_s=3.0, noisy_retries=0, max_size=1 << 16)
SETTINGS = RunnerSettings(pairs=4, callgrind=False, run_timeout_s=60.0, build_timeout_s=120.0,
                          threads=2)


@dataclass(frozen=True)
class _Result:
    name: str
    kind: str
    verdict: Verdict


async def _judge(entry_index: int, code: str, kind: str, gate: asyncio.Semaphore) -> _Result:
    entry = CORPUS[entry_index]
    site = function_by_name(entry.unit, entry.language, entry.name)  # type: ignore[arg-type]
    async with gate:
        v = await verify_and_measure(site, code, SETTINGS, JobContext(), tuning=TUNING)
    return _Result(entry.name, kind, v)


async def test_wrong_candidates_are_rejected_and_correct_ones_pass() -> None:
    gate = asyncio.Semaphore(2)
    jobs = []
    for i, entry in enumerate(CORPUS):
        jobs.append(_judge(i, entry.correct, "correct", gate))
        jobs.extend(_judge(i, w.code, w.kind, gate) for w in entry.wrong)
    results = await asyncio.gather(*jobs)
    correct = [r for r in results if r.kind == "correct"]
    wrong = [r for r in results if r.kind != "correct"]
    assert len(wrong) == wrong_count() >= 40

    blamed = [f"{r.name}: {r.verdict.verdict}: {r.verdict.message}" for r in correct
              if r.verdict.verdict in ("incorrect", "build-failed", "timeout")]
    assert not blamed, "\n".join(blamed)

    let_through = [f"{r.name} ({r.kind}): {r.verdict.verdict}: {r.verdict.message}"
                   for r in wrong
                   if r.verdict.verdict != "incorrect" and r.verdict.validation_status != "weak"]
    assert not let_through, "\n".join(let_through)
    rejected = sum(r.verdict.verdict == "incorrect" for r in wrong)
    weak = [f"{r.name} ({r.kind}): {r.verdict.validation_detail}" for r in wrong
            if r.verdict.verdict != "incorrect"]
    assert rejected >= 0.95 * len(wrong), "weakly verified:\n" + "\n".join(weak)
