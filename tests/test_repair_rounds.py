"""Repair rounds: the verdict a model is shown, the candidate chosen for repair, the rounds the
engine runs (and does not run), replayed answers by file name, and the settings that gate it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.engine.engine import Engine, repair_pick
from perfpilot.engine.outcome import Trial
from perfpilot.engine.workspace_config import workspace_config
from perfpilot.llm.base import Message
from perfpilot.optimizing.llm_optimizer import ModelOptimizer
from perfpilot.optimizing.replay import ReplayOptimizer, answer_stems
from perfpilot.progress import Cancelled, JobContext
from perfpilot.prompting.repair import feedback, repairable, trim_compiler_errors
from perfpilot.runner.values import Verdict
from perfpilot.settings import RoleSettings, Settings
from perfpilot.strategy.values import Candidate, OptimizeResult, Plan

UNIT = """#include <vector>

// The sum of the squares.
long squares(const std::vector<int>& v) {
    long s = 0;
    for (std::size_t i = 0; i < v.size(); ++i) s += (long)v[i] * v[i];
    return s;
}
"""
SITE = function_by_name(UNIT, "cpp", "squares")
PLAN = Plan((), "builtin")
CAND = Candidate("static long sq(int x) { return (long)x * x; }\n\nlong squares(const "
                 "std::vector<int>& v) {\n    long s = 0;\n    for (int x : v) s += sq(x)\n"
                 "    return s;\n}\n", (), "remote")
LOG = ("/tmp/perfpilot-run-x1/b/unit.cpp: In function 'long int squares(const "
       "std::vector<int>&)':\n/tmp/perfpilot-run-x1/b/unit.cpp:8:36: error: expected ';' "
       "before 'return'\n    8 |     for (int x : v) s += sq(x)\n  | ^\nb/unit.cpp:40:1: error: "
       "something in the harness\n")
BUILD = Verdict("build-failed", "The candidate does not compile: b/unit.cpp:8:36: error: "
                "expected ';' before 'return'", build_log=LOG)
WRONG = Verdict("incorrect", "The candidate's output differs from the original's at size 3, "
                "natural values, seed 7: original return value = 14, candidate return value = "
                "13.", validation_detail="size 3, natural values, seed 7: original return "
                "value = 14, candidate return value = 13")
SLOW = Verdict("slower", "0.80× slower", speedup=0.8, ci95=(0.78, 0.82), median_a_s=0.002,
               median_b_s=0.0025, pairs=12)


def test_compiler_errors_are_trimmed_to_lines_of_the_models_code() -> None:
    text = trim_compiler_errors(LOG, SITE, CAND)
    # The candidate starts at the function's line (4); line 8 of the unit is its line 5.
    assert text.splitlines()[0] == "line 5 of your code: error: expected ';' before 'return'"
    assert "line 40 of the file: error: something in the harness" in text
    assert "/tmp" not in text and "unit.cpp" not in text and "In function" not in text


def test_the_feedback_says_what_failed_with_the_evidence() -> None:
    assert "expected ';' before 'return'" in feedback(SITE, CAND, BUILD)
    wrong = feedback(SITE, CAND, WRONG)
    assert "original return value = 14, candidate return value = 13" in wrong
    assert "size 3, natural values, seed 7" in wrong
    slow = feedback(SITE, CAND, SLOW)
    assert "2 ms" in slow and "2.5 ms" in slow and "0.80×" in slow


def test_only_the_models_own_failures_are_repairable() -> None:
    assert repairable(BUILD) and repairable(WRONG) and repairable(SLOW)
    assert not repairable(replace(BUILD, message="The original does not build on its own: x"))
    assert not repairable(replace(BUILD, needs_spec=True))
    assert not repairable(Verdict("rejected", "Rejected by the capability policy"))
    assert not repairable(Verdict("noisy", "busy"))
    assert not repairable(replace(SLOW, verdict="faster", speedup=2.0))


def trial(verdict: Verdict, backend: str = "remote", round_: int = 0, tag: str = "") -> Trial:
    return Trial(replace(CAND, code=CAND.code + f"// {tag}\n", backend=backend, round=round_),
                 verdict)


def test_the_candidate_closest_to_a_gain_goes_back_first() -> None:
    trials = (trial(BUILD, tag="a"), trial(WRONG, tag="b"), trial(SLOW, tag="c"),
              trial(SLOW, backend="builtin", tag="d"))
    picked = repair_pick(trials)
    assert picked is not None and picked.candidate.code.endswith("// c\n")
    assert repair_pick((trial(BUILD), trial(WRONG, tag="w"))).candidate.code.endswith("w\n")
    assert repair_pick((trial(Verdict("rejected", "no")),)) is None


class FakeRepairer:
    """Answers each repair round from a list, recording what it was shown."""

    name = "fake"

    def __init__(self, answers: Sequence[Candidate | None], cancel: JobContext | None = None,
                 ) -> None:
        self.answers = list(answers)
        self.shown: list[tuple[str, str, int]] = []
        self.cancel = cancel

    async def optimize(self, site: object, plan: Plan, ctx: JobContext) -> OptimizeResult:
        raise AssertionError("not used")

    async def repair(self, site: object, plan: Plan, candidate: Candidate, verdict: Verdict,
                     round_: int, ctx: JobContext) -> OptimizeResult:
        self.shown.append((candidate.code, verdict.verdict, round_))
        if self.cancel is not None:
            self.cancel.cancel()
        answer = self.answers.pop(0) if self.answers else None
        return OptimizeResult((replace(answer, round=round_),) if answer is not None else ())


def engine_with(fake: FakeRepairer, rounds: int) -> Engine:
    engine = Engine(Settings(optimizer=RoleSettings(backend="remote", repair_rounds=rounds)))
    engine.optimizer = lambda flags=(), role=None: fake  # type: ignore[method-assign]
    return engine


async def test_rounds_run_until_a_candidate_is_faster_each_repairing_the_last() -> None:
    fixed = [replace(CAND, code="round 1"), replace(CAND, code="round 2"),
             replace(CAND, code="round 3")]
    fake = FakeRepairer(fixed)
    verdicts = {"round 1": WRONG, "round 2": replace(SLOW, verdict="faster", speedup=3.0),
                "round 3": SLOW}

    async def measure(cand: Candidate) -> Verdict:
        return verdicts[cand.code]

    added, refused = await engine_with(fake, 3).repair_rounds(
        SITE, PLAN, (trial(BUILD, tag="first"),), JobContext(), measure)
    assert [(t.candidate.code, t.candidate.round, t.verdict.verdict if t.verdict else "")
            for t in added] == [("round 1", 1, "incorrect"), ("round 2", 2, "faster")]
    assert [(code.splitlines()[-1], word, r) for code, word, r in fake.shown] == [
        ("// first", "build-failed", 1), ("round 1", "incorrect", 2)]
    assert refused == []


async def test_no_round_when_turned_off_or_already_faster() -> None:
    fake = FakeRepairer([CAND])

    async def measure(cand: Candidate) -> Verdict:
        raise AssertionError("nothing to measure")

    assert await engine_with(fake, 0).repair_rounds(
        SITE, PLAN, (trial(WRONG),), JobContext(), measure) == ([], [])
    faster = replace(SLOW, verdict="faster", speedup=2.0)
    assert await engine_with(fake, 2).repair_rounds(
        SITE, PLAN, (trial(faster), trial(WRONG)), JobContext(), measure) == ([], [])
    assert fake.shown == []


async def test_a_repair_that_answers_the_same_code_ends_the_rounds() -> None:
    fake = FakeRepairer([CAND, CAND])

    async def measure(cand: Candidate) -> Verdict:
        raise AssertionError("the same code is not measured again")

    added, refused = await engine_with(fake, 2).repair_rounds(
        SITE, PLAN, (Trial(CAND, WRONG),), JobContext(), measure)
    assert added == [] and len(fake.shown) == 1
    assert [(r.reason, r.round) for r in refused] == [
        ("the repair answer is the code already measured", 1)]


async def test_a_repair_that_only_adds_an_include_is_measured() -> None:
    fixed = replace(CAND, includes=("<numeric>",))
    fake = FakeRepairer([fixed])
    measured: list[Candidate] = []

    async def measure(cand: Candidate) -> Verdict:
        measured.append(cand)
        return replace(SLOW, verdict="faster", speedup=2.0)

    added, refused = await engine_with(fake, 1).repair_rounds(
        SITE, PLAN, (Trial(CAND, BUILD),), JobContext(), measure)
    assert [c.includes for c in measured] == [("<numeric>",)] and refused == []
    assert added[0].candidate.round == 1


async def test_a_cancelled_job_stops_in_the_middle_of_a_repair_round() -> None:
    ctx = JobContext()
    fake = FakeRepairer([CAND], cancel=ctx)

    async def measure(cand: Candidate) -> Verdict:
        raise AssertionError("a cancelled job measures nothing more")

    with pytest.raises(Cancelled):
        await engine_with(fake, 2).repair_rounds(SITE, PLAN, (trial(WRONG),), ctx, measure)
    assert len(fake.shown) == 1


class Recording:
    """A TextGenerator that answers one text and keeps the messages it was sent."""

    backend = "remote"
    model = "m"

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.sent: list[Sequence[Message]] = []

    async def generate(self, messages: Sequence[Message], *, n: int, max_tokens: int,
                       temperature: float, stop: Sequence[str], ctx: JobContext) -> list[str]:
        self.sent.append(messages)
        return [self.answer] * n

    async def close(self) -> None:
        return None


async def test_the_repair_prompt_shows_the_code_and_the_verdict() -> None:
    fixed = CAND.code.replace("sq(x)\n", "sq(x);\n")
    client = Recording(f"Fixed:\n```cpp\n{fixed}```")
    optimizer = ModelOptimizer(RoleSettings(backend="remote", model="m"), client)
    result = await optimizer.repair(SITE, PLAN, CAND, BUILD, 1, JobContext())
    (cand,) = result.candidates
    assert cand.round == 1 and "s += sq(x);" in cand.code
    prompt = client.sent[0][1]["content"]
    assert "for (int x : v) s += sq(x)\n" in prompt  # the previous attempt
    assert "line 5 of your code: error: expected ';' before 'return'" in prompt
    assert "/tmp/" not in prompt
    await optimizer.repair(SITE, PLAN, CAND, WRONG, 1, JobContext())
    assert "original return value = 14, candidate return value = 13" in \
        client.sent[1][1]["content"]


async def test_replayed_answers_by_file_name(tmp_path: Path) -> None:
    good = "```cpp\n" + UNIT[UNIT.index("long squares"):].replace(
        "(long)v[i] * v[i]", "(long)v[i] * (long)v[i]") + "```\n"
    (tmp_path / "squares.md").write_text(good)
    (tmp_path / "squares.2.md").write_text(good.replace("s = 0", "s = 0L"))
    (tmp_path / "squares.repair2.md").write_text(good.replace("s = 0", "s = 0 * 1"))
    replay = ReplayOptimizer(RoleSettings(backend="replay"), tmp_path)
    result = await replay.optimize(SITE, PLAN, JobContext())
    assert [c.sample for c in result.candidates] == [0, 1]
    assert all(c.backend == "replay" and c.round == 0 for c in result.candidates)
    assert (await replay.repair(SITE, PLAN, result.candidates[0], WRONG, 1,
                                JobContext())).candidates == ()
    second = await replay.repair(SITE, PLAN, result.candidates[1], WRONG, 2, JobContext())
    assert [(c.round, c.sample) for c in second.candidates] == [(2, 1)]
    missing = await replay.optimize(function_by_name("int other() { return 1; }\n", "cpp",
                                                     "other"), PLAN, JobContext())
    assert missing.candidates == ()
    assert missing.rejected[0].reason.startswith("no replayed answer for `other` (no other.md")


def test_a_method_may_be_answered_as_class_and_method() -> None:
    unit = "namespace geo {\nstruct Grid { int w; int area() const; };\n" \
           "int Grid::area() const { return w * w; }\n}\n"
    site = function_by_name(unit, "cpp", "geo::Grid::area")
    assert answer_stems(site) == ["geo__Grid__area", "Grid__area", "area"]


async def test_the_engine_replays_from_a_workspace_folder(tmp_path: Path) -> None:
    (tmp_path / "answers").mkdir()
    (tmp_path / "answers" / "squares.md").write_text("```cpp\nint x;\n```")
    engine = Engine(Settings(optimizer=RoleSettings(backend="replay", answers="answers")),
                    tmp_path)
    result = await engine.candidates(SITE, PLAN, JobContext())
    assert result.candidates == ()
    assert result.rejected[0].reason.startswith("extraction failed: one fenced block, which "
                                                "does not define `squares`")
    # Read afresh: an answer edited in the folder is what the next job gets.
    (tmp_path / "answers" / "squares.md").write_text(
        "```cpp\nlong squares(const std::vector<int>& v) { return v.empty() ? 0 : 1; }\n```")
    assert len((await engine.candidates(SITE, PLAN, JobContext())).candidates) == 1


def test_answers_are_trusted_only_and_repair_rounds_capped(tmp_path: Path) -> None:
    (tmp_path / ".perfpilot.toml").write_text(
        '[optimizer]\nbackend = "replay"\nanswers = "/etc"\nrepairRounds = 9\n')
    untrusted = workspace_config(tmp_path, trusted=False)
    assert untrusted.settings.optimizer.answers == ""
    assert untrusted.settings.optimizer.repair_rounds == 1
    assert "optimizer.answers" in untrusted.notice()
    assert "optimizer.repair_rounds at 1" in untrusted.notice()
    trusted = workspace_config(tmp_path, trusted=True)
    assert trusted.settings.optimizer.answers == "/etc"
    assert trusted.settings.optimizer.repair_rounds == 9
