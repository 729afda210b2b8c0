"""Evaluation of the model path with replayed answers: a task's own answers (with a repair
round), the reference unit as the answer, and the pass-through figures with every loss."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from perfpilot.engine.engine import Engine
from perfpilot.evaluation.evaluate import EvalOptions, Evaluator
from perfpilot.evaluation.metrics import compute_metrics
from perfpilot.evaluation.pass_through import pass_through
from perfpilot.evaluation.report import markdown_report
from perfpilot.evaluation.results import RejectedAnswer, SampleResult, TaskResult
from perfpilot.evaluation.store import ResultStore
from perfpilot.evaluation.tasks import TaskError, load_task, load_tasks
from perfpilot.progress import JobContext
from perfpilot.settings import RoleSettings, RunnerSettings, Settings
from test_model_path_e2e import HELPERS, RIGHT, SOURCE, WRONG

REFERENCE = "#include <vector>\n\n" + HELPERS + """
unsigned long pair_total(const std::vector<int>& v)
{
    Sums s = sums_of(v);
    return 2 * s.count * s.total;
}
"""
TOML = """description = "Pairs"
source = "pairs.cpp"
function = "pair_total"
reference = "reference.cpp"
answers = "answers"
"""


@pytest.fixture
def tasks(tmp_path: Path) -> Path:
    task = tmp_path / "tasks" / "pairs"
    (task / "answers").mkdir(parents=True)
    (task / "task.toml").write_text(TOML)
    (task / "pairs.cpp").write_text(SOURCE)
    (task / "reference.cpp").write_text(REFERENCE)
    (task / "answers" / "pair_total.md").write_text(WRONG)
    (task / "answers" / "pair_total.repair1.md").write_text(RIGHT)
    return tmp_path / "tasks"


async def test_replayed_answers_with_a_repair_and_the_reference_as_the_answer(
        tasks: Path, tmp_path: Path) -> None:
    runner = RunnerSettings(pairs=6, callgrind=False)
    engine = Engine(Settings(optimizer=RoleSettings(backend="replay"), runner=runner))
    try:
        (first,) = await Evaluator(engine, ResultStore(tmp_path / "own"),
                                   EvalOptions(retries=0)).run(load_tasks(tasks), JobContext())
        assert [(s.verdict, s.round) for s in first.samples] == [("incorrect", 0),
                                                                 ("faster", 1)]
        assert first.chosen == 1 and "candidate return value" in first.samples[0].detail
        assert first.reference is not None and first.reference.verdict == "faster"
        figures = compute_metrics([first])["pass_through"]
        assert figures["verified_measured"] == 1 and figures["with_reference"] == 1
        # An answer timed at another size than the reference: the reference is timed again at
        # the answer's size, so the two figures compare like with like.
        evaluator = Evaluator(engine, ResultStore(tmp_path / "own"), EvalOptions(retries=0))
        assert first.reference.size is not None
        smaller = first.reference.size // 2
        pinned = await evaluator._reference_at(
            load_task(tasks / "pairs"), JobContext(),
            sample("faster", 3.0, size=smaller), first.reference, None)
        assert pinned is not None and pinned.size == smaller, pinned
        # The reference unit itself, wrapped as a model's answer: the same code as the repair.
        engine.update_settings(replace(engine.settings, optimizer=RoleSettings(
            backend="replay", answers="reference")))
        out = tmp_path / "ref"
        replaying = Evaluator(engine, ResultStore(out), EvalOptions(retries=0,
                                                                   reference=False))
        (second,) = await replaying.run(load_tasks(tasks), JobContext())
        # Figures that say the answer falls short: the answer (here the reference's own code)
        # is timed against the reference in one paired run, at the answer's size.
        gen = await replaying._generate(load_task(tasks / "pairs"), JobContext())
        assert gen.result is not None and first.best is not None
        short = replace(first, reference=replace(first.reference,
                                                 speedup=10 * (first.best.speedup or 1.0)))
        assert await replaying._against_reference(gen, None, short, JobContext(), None) is None
        direct = await replaying._against_reference(gen, gen.result.candidates[0], short,
                                                    JobContext(), None)
        assert direct is not None and direct.size == first.best.size, direct
        assert direct.verdict in ("no-change", "faster", "slower", "noisy"), direct
    finally:
        await engine.close()
    assert [(s.verdict, s.round) for s in second.samples] == [("faster", 0)]
    written = (out / "answers" / "pairs" / "pair_total.md").read_text()
    assert written.startswith("A faster version of `pair_total`") and "```cpp\n#include" in written


def test_a_task_names_its_answers_folder_inside_it(tasks: Path) -> None:
    task = load_task(tasks / "pairs")
    assert task.answers == (tasks / "pairs" / "answers").resolve()
    assert task.answers / "pair_total.md" in task.inputs()
    (tasks / "pairs" / "task.toml").write_text(TOML.replace('"answers"', '"../elsewhere"'))
    with pytest.raises(TaskError, match="'answers' must name a folder inside the task"):
        load_task(tasks / "pairs")


def sample(verdict: str, speedup: float | None = None, **kw: object) -> SampleResult:
    return SampleResult(verdict=verdict, speedup=speedup, **kw)  # type: ignore[arg-type]


def task(name: str, samples: tuple[SampleResult, ...], ref: float | None = 2.0,
         **kw: object) -> TaskResult:
    chosen = next((i for i, s in enumerate(samples) if s.verdict == "faster"), None)
    return TaskResult(task=name, openmp=False, labels=(), planned=(), samples=samples,
                      chosen=chosen, reference=sample("faster", ref) if ref else None,
                      **kw)  # type: ignore[arg-type]


def test_pass_through_figures_and_every_loss_with_its_reason() -> None:
    results = [
        task("kept", (sample("faster", 2.0),)),
        task("noise", (sample("faster", 1.5),)),
        task("no_answer", (), rejected=(RejectedAnswer("no replayed answer for `f` (no f.md)"),)),
        task("shape", (), rejected=(RejectedAnswer(
            "extraction failed: two fenced blocks, neither defines `f`"),)),
        task("refused", (), rejected=(RejectedAnswer(
            "its struct `P` (line 1) redefines `P`, which the file already defines"),)),
        task("policy", (sample("rejected", detail="line 2: `fopen` — files"),)),
        task("feed", (sample("build-failed", needs_spec=True, detail="a struct by pointer"),)),
        task("wrong", (sample("incorrect", detail="size 3: 4 vs 5"),
                       sample("build-failed", round=1, detail="error: x"))),
        task("weak", (sample("weakly-verified", 2.0, detail="untested: n < 0"),)),
    ]
    figures = pass_through(results)
    assert figures["tasks"] == 9 and figures["verified_measured"] == 2
    assert figures["with_reference"] == 9
    losses = {x["task"]: (x["kind"], x["reason"]) for x in figures["losses"]}
    assert "kept" not in losses
    assert losses["noise"] == ("short of the reference",
                               "measured 1.50× (faster) where the reference measured 2.00×")
    assert losses["no_answer"][0] == "no answer"
    assert losses["shape"] == ("extraction failed", "two fenced blocks, neither defines `f`")
    assert losses["refused"][0] == "answer refused" and "redefines `P`" in losses["refused"][1]
    assert losses["policy"] == ("rejected by policy", "line 2: `fopen` — files")
    assert losses["feed"] == ("harness cannot feed", "a struct by pointer")
    assert losses["wrong"] == ("build failed", "error: x (after 1 repair round)")
    assert losses["weak"] == ("weak", "untested: n < 0")
    assert figures["ours_geomean"] < figures["reference_geomean"]
    assert 0 < figures["geomean"] < 1
    sized = replace(task("sized", (sample("faster", 1.5, size=2048),)),
                    reference=sample("faster", 2.0, size=4096))
    assert pass_through([sized])["losses"][0]["reason"].endswith(
        ", timed at size 2048 against 4096")
    # The reference timed again at the answer's size is what the answer is held to.
    pinned = replace(sized, reference_at_size=sample("faster", 1.6, size=2048))
    assert pass_through([pinned])["losses"] == []
    assert pass_through([pinned])["reference_geomean"] == 1.6
    assert TaskResult.from_json(pinned.to_json()) == pinned
    # Timed against each other, the answer and the reference did not differ: no loss, and
    # the reference counts at the answer's figure.
    same = replace(sized, against_reference=sample("no-change", 1.02, size=2048))
    assert pass_through([same])["losses"] == [] and pass_through([same])["geomean"] == 1.0
    assert pass_through([same])["reference_geomean"] == 1.5
    assert TaskResult.from_json(same.to_json()) == same
    # The paired run confirms the gap: its ratio is the pass-through, and the loss says so.
    behind = replace(sized, against_reference=sample("faster", 1.25, size=2048))
    figures = pass_through([behind])
    assert figures["geomean"] == 0.8 and figures["reference_geomean"] == 1.875
    assert figures["paired"] == 1 and pass_through([sized])["paired"] == 0
    assert "1 of them from the answer timed against the reference in one paired run" in \
        "\n".join(markdown_report(compute_metrics([behind])).splitlines())
    assert figures["losses"][0]["reason"].endswith(
        "; timed against each other, the reference is 1.25× the answer's speed")
    busy = task("busy", (sample("noisy", message="machine too busy", detail="agree"),))
    assert pass_through([busy])["losses"][0] == {"task": "busy", "kind": "noisy",
                                                 "reason": "machine too busy"}
    text = "\n".join(markdown_report(compute_metrics(results)).splitlines())
    assert "## Pass-through" in text and "Answers verified and measured: 2 of 9" in text
    assert "| policy | rejected by policy | line 2: `fopen` — files |" in text
