"""GRPO's reward: the engine's choice among what a frozen optimizer makes of a plan.

The runner is replaced by a stand-in where a test needs fixed verdicts (the reward's rules are
what is tested); one test measures with the real runner. The model optimizer is a loopback
OpenAI-compatible endpoint serving fixed answers, reached through the engine's factory.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest

from perfpilot.code.site import FunctionSite
from perfpilot.runner.values import Tuning, Verdict, Verification
from perfpilot.settings import RoleSettings, RunnerSettings
from perfpilot.strategy.categories import CATEGORIES
from perfpilot.strategy.values import Candidate
from perfpilot.training.corpus import generate
from perfpilot.training.runtime_reward import PENALTY, RewardShape, RuntimeReward, reward_of
from test_llm_remote_faults import FaultyEndpoint, Stream

STRONG = Verification(cases=4, mutants=4, killed=4)
TASK = generate(1, families=("by-value-vector",))[0]
RIGHT = ("[SUGG/]\n- **Function Call Overhead Reduction**: take the vector by const "
         "reference instead of copying it\n[/SUGG]")
SHAPE = RewardShape()


def _verdict(word: str, speedup: float | None = None,
             ci: tuple[float, float] | None = None) -> Verdict:
    return Verdict(word, "", speedup=speedup, ci95=ci, validation_status="passed",
                   verification=STRONG)


def _stub(decide: Callable[[str], Verdict]) -> Any:
    async def measure(site: FunctionSite, cand: Candidate) -> Verdict:
        return decide(cand.code)
    return measure


def _score(reward: RuntimeReward, *texts: str) -> list[float | None]:
    return reward([None] * len(texts), [[{"role": "assistant", "content": t}] for t in texts],
                  unit=[TASK.unit] * len(texts), name=[TASK.name] * len(texts))


@contextlib.contextmanager
def served(endpoint: FaultyEndpoint) -> Iterator[None]:
    """The loopback endpoint on an event loop of its own thread, for a synchronous caller."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    asyncio.run_coroutine_threadsafe(endpoint.__aenter__(), loop).result()
    try:
        yield
    finally:
        asyncio.run_coroutine_threadsafe(endpoint.__aexit__(None, None, None), loop).result()
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()


def _plan(*categories: str) -> str:
    return "[SUGG/]\n" + "".join(f"- **{c}**: change it\n" for c in categories) + "[/SUGG]"


def test_a_verdict_is_worth_a_reward_only_when_strongly_verified() -> None:
    assert reward_of(_verdict("faster", 2.0, (1.8, 2.2))) == pytest.approx(math.log(2.0))
    assert reward_of(_verdict("no-change", 1.01)) == 0.0
    assert reward_of(_verdict("noisy", 1.0)) is None
    assert reward_of(Verdict("faster", "", speedup=3.0, validation_status="weak")) is None
    weak = Verification(cases=4, mutants=4, killed=2, strong_survivors=2)
    assert reward_of(Verdict("faster", "", speedup=3.0, validation_status="passed",
                             verification=weak)) is None
    assert reward_of(Verdict("faster", "", speedup=3.0, validation_status="passed",
                             needs_spec=True)) is None
    assert reward_of(Verdict("weakly-verified", "", speedup=3.0)) is None
    for word in ("incorrect", "build-failed", "timeout"):
        assert reward_of(Verdict(word, "")) == PENALTY
    # The harness could not feed the function: nothing is known of the candidate.
    assert reward_of(Verdict("needs-spec", "", needs_spec=True)) is None
    # Stopped in timing at 20 times the original's time: validated, and far too slow.
    assert reward_of(Verdict("slower", "", validation_status="passed")) == PENALTY


def test_naming_every_category_does_not_out_score_the_right_plan() -> None:
    reward = RuntimeReward(measure=_stub(lambda code: _verdict("faster", 2.0, (1.9, 2.1))))
    try:
        names = [c.name for c in CATEGORIES]
        right_first = ["Function Call Overhead Reduction",
                       *(n for n in names if n != "Function Call Overhead Reduction")]
        right, every, every_right_first, garbage, idle = _score(
            reward, RIGHT, _plan(*names), _plan(*right_first), "no plan here",
            _plan("Input/Output Optimization"))
    finally:
        reward.close()
    assert right == pytest.approx(SHAPE.format_bonus + math.log(2.0))
    assert every is not None and every < right
    assert every_right_first is not None and every_right_first < right
    # A plan that parses but that the rewriter cannot act on beats garbage, and costs a little.
    assert garbage == SHAPE.garbage
    assert idle == pytest.approx(SHAPE.format_bonus + SHAPE.idle_strategy)
    assert garbage < idle < right


def test_noisy_and_wrong_candidates_are_unscorable_or_penalised() -> None:
    noisy = RuntimeReward(measure=_stub(lambda code: _verdict("noisy", 1.3)))
    wrong = RuntimeReward(measure=_stub(lambda code: Verdict("incorrect", "differs",
                                                             validation_status="failed")))
    try:
        assert _score(noisy, RIGHT) == [None]
        assert _score(wrong, RIGHT) == [pytest.approx(SHAPE.format_bonus + SHAPE.failure)]
    finally:
        noisy.close()
        wrong.close()


def test_a_model_optimizer_reads_the_plan_and_the_engine_choice_is_the_reward() -> None:
    fast = TASK.fast
    shaky = TASK.fast.replace("{", "{\n  // the same, measured with a wide interval", 1)
    answers = [Stream(f"```cpp\n{code}```\n") for code in (fast, shaky)]
    endpoint = FaultyEndpoint(*answers)
    role = RoleSettings(backend="remote", endpoint="", model="tiny", samples=2,
                        temperature=0.7, timeout_s=10.0, max_tokens=400)

    def decide(code: str) -> Verdict:
        # The sure 2x is the engine's choice (best lower bound); the shaky one is "faster".
        return (_verdict("faster", 3.0, (1.05, 8.0)) if "wide interval" in code
                else _verdict("faster", 2.0, (1.9, 2.1)))

    with served(endpoint):
        reward = RuntimeReward(optimizer=replace(role, endpoint=endpoint.url),
                               measure=_stub(decide))
        try:
            (value,) = _score(reward, RIGHT)
        finally:
            reward.close()
    asked = " ".join(m["content"] for r in endpoint.requests for m in r["json"]["messages"])
    assert "take the vector by const reference instead of copying it" in asked
    assert len(endpoint.requests) == 2 and reward.log[-1]["verdicts"] == ["faster", "faster"]
    # Not the best of the two (3.0x): the candidate the engine would apply.
    assert value == pytest.approx(SHAPE.format_bonus + math.log(2.0))


def test_runtime_reward_measures_a_plan_with_the_real_runner() -> None:
    fast = Tuning(target_sample_s=0.002, edge_sizes=(0, 1, 7), budget_s=10.0,
                  noisy_retries=2, max_pairs_factor=6, profiles=(0, 1), seeds_per_profile=1,
                  mutants=False, coverage=False, sanitizers=False)
    settings = RunnerSettings(pairs=10, callgrind=False, run_timeout_s=30.0,
                              build_timeout_s=60.0)
    reward = RuntimeReward(settings=settings, tuning=fast)
    try:
        (value,) = _score(reward, RIGHT)
    finally:
        reward.close()
    ((key, verdict),) = reward.verdicts.items() or [(("", ""), None)]
    entry = reward.log[-1]
    if verdict is None:  # measured noisy: never cached, never a reward
        assert value is None and entry["verdicts"] == ["noisy"]
        return
    assert "const std::vector" in key[1]  # the frozen optimizer applied the planned rule
    assert verdict.verdict in ("faster", "no-change", "slower")
    base = SHAPE.format_bonus
    if verdict.verdict == "faster" and reward_of(verdict) is not None:
        assert value == pytest.approx(base + math.log(verdict.speedup or 0))
    elif reward_of(verdict) is None:
        assert value is None
    else:
        assert value == pytest.approx(base)  # the engine keeps the original: 1.00x
