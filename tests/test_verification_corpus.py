"""The verifier against subtly wrong candidates (tests/verification_corpus.py), end to end.

Every wrong candidate must be rejected (``incorrect``) or, at worst, reported as weakly
verified; at least 95% must be rejected. Every correct rewrite must pass validation: a correct
rewrite blamed for invalid inputs is as bad as a wrong one let through.
"""

from __future__ import annotations

import shutil

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.progress import JobContext
from perfpilot.runner.measure import verify_and_measure
from perfpilot.runner.values import Tuning, Verdict
from perfpilot.settings import RunnerSettings
from verification_corpus import CORPUS, Entry, wrong_count

pytestmark = pytest.mark.skipif(shutil.which("g++") is None or shutil.which("gcc") is None,
                                reason="g++/gcc not installed")

# Validation is what is under test: timing is cut short.
TUNING = Tuning(target_sample_s=0.0003, budget_s=2.0, noisy_retries=0, max_size=1 << 16)
SETTINGS = RunnerSettings(pairs=3, callgrind=False, run_timeout_s=60.0, build_timeout_s=120.0,
                          threads=2)
# Every wrong candidate's verdict, by entry, for the corpus-wide share checked last.
_WRONG: dict[str, list[Verdict]] = {}


async def _judge(entry: Entry, code: str) -> Verdict:
    site = function_by_name(entry.unit, entry.language, entry.name)  # type: ignore[arg-type]
    return await verify_and_measure(site, code, SETTINGS, JobContext(), tuning=TUNING)


# ``make test`` judges these entries (integers, characters in C, a modulus, floating point with
# aliasing, bytes, repeats); ``make test-deep`` the whole corpus and the corpus-wide share.
SAMPLE = ("max_product", "count_upper", "mod_sum", "dot", "byte_hash", "most_repeats")


@pytest.mark.parametrize("entry", [
    pytest.param(e, id=e.name, marks=pytest.mark.sweep if e.name in SAMPLE else pytest.mark.deep)
    for e in CORPUS])
async def test_each_wrong_candidate_is_caught_and_the_correct_one_passes(entry: Entry) -> None:
    v = await _judge(entry, entry.correct)
    assert v.verdict not in ("incorrect", "build-failed", "timeout"), \
        f"correct rewrite blamed: {v.verdict}: {v.message}"
    verdicts = [await _judge(entry, w.code) for w in entry.wrong]
    _WRONG[entry.name] = verdicts
    let_through = [f"{w.kind}: {v.verdict}: {v.message}"
                   for w, v in zip(entry.wrong, verdicts, strict=True)
                   if v.verdict != "incorrect" and v.validation_status != "weak"]
    assert not let_through, "\n".join(let_through)


@pytest.mark.deep
def test_at_least_95_percent_of_wrong_candidates_are_rejected_outright() -> None:
    # The entries run before this test in the same worker (``--dist loadfile``).
    assert len(_WRONG) == len(CORPUS), "runs after every corpus entry was judged"
    verdicts = [v for vs in _WRONG.values() for v in vs]
    assert len(verdicts) == wrong_count() >= 40
    weak = [f"{name}: {v.validation_detail}" for name, vs in _WRONG.items() for v in vs
            if v.verdict != "incorrect"]
    assert len(verdicts) - len(weak) >= 0.95 * len(verdicts), "\n".join(weak)
