"""Repair rounds: what a model is told when its rewrite failed, and the request to fix it.

A model candidate that did not compile, computed something else, or was not faster goes back to
the model with the runner's evidence: the first compiler errors (our build folders and file
names replaced by lines of the model's own code), the first input on which the outputs
differed with both outputs, or both timings. Other verdicts are not sent back: a refusal by the
capability policy is not coached around, a harness that cannot feed the function is not the
model's to fix, and noisy or weakly verified results say nothing about the code.
"""

from __future__ import annotations

import re

from perfpilot.code.site import FunctionSite
from perfpilot.code.splice import missing_includes
from perfpilot.llm.base import Message
from perfpilot.prompting.prompts import (
    SYSTEM,
    answer_shape,
    code_rules,
    context_block,
    function_block,
    lang_tag,
    language_name,
)
from perfpilot.runner.values import Verdict
from perfpilot.strategy.values import Candidate

# Verdicts a repair round answers.
REPAIRABLE = frozenset({"build-failed", "incorrect", "slower", "no-change", "timeout"})
MAX_ERROR_LINES = 5
_MAX_LINE_CHARS = 300
# "b/unit.cpp:12:5: error: ...", "/tmp/pp-x/b/unit.cpp: In function ...": a file of ours.
_LOCATION = re.compile(
    r"(?P<path>(?:[^\s:'\"`]*/)?[^\s/:'\"`]+\.(?:c|cc|cpp|cxx|c\+\+|h|hh|hpp))"
    r"(?::(?P<line>\d+))?(?::(?P<col>\d+))?:")
_ABSOLUTE = re.compile(r"(?<![\w.])/(?:[\w.+-]+/)+")


def repairable(verdict: Verdict | None) -> bool:
    """Whether a candidate with ``verdict`` may be sent back for a corrected version."""
    if verdict is None or verdict.verdict not in REPAIRABLE or verdict.needs_spec:
        return False
    if verdict.verdict == "build-failed":
        # Only the candidate's own compile errors: not an original that does not build, a
        # harness or spec that does not compile, or inputs that could not be made.
        return verdict.message.startswith("The candidate does not compile")
    return True


def trim_compiler_errors(log: str, site: FunctionSite, candidate: Candidate,
                         limit: int = MAX_ERROR_LINES) -> str:
    """The first ``limit`` error lines of a build log, each location given as a line of the
    candidate's code (``line 3``) or of the file, never as a path of ours."""
    missing = missing_includes(site.unit_text, candidate.includes)
    first = site.first_line + len(missing)  # where the candidate's code starts in its unit
    length = candidate.code.count("\n") + 1

    def where(m: re.Match[str]) -> str:
        if m.group("line") is None:
            return "your code:"
        line = int(m.group("line")) - first + 1
        if 1 <= line <= length:
            return f"line {line} of your code:"
        return f"line {m.group('line')} of the file:"

    out: list[str] = []
    for raw in log.splitlines():
        if "error" not in raw.lower():
            continue
        text = _ABSOLUTE.sub("", _LOCATION.sub(where, raw.strip(), count=1))
        text = text if len(text) <= _MAX_LINE_CHARS else text[:_MAX_LINE_CHARS - 1] + "…"
        if text not in out:
            out.append(text)
        if len(out) >= limit:
            break
    if not out:
        first_line = next((ln.strip() for ln in log.splitlines() if ln.strip()), "")
        out = [_ABSOLUTE.sub("", _LOCATION.sub(where, first_line, count=1))[:_MAX_LINE_CHARS]
               or "the compiler failed without a message"]
    return "\n".join(out)


def _time(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    return f"{seconds * 1e3:.3g} ms" if seconds >= 1e-4 else f"{seconds * 1e6:.3g} µs"


def feedback(site: FunctionSite, candidate: Candidate, verdict: Verdict) -> str:
    """What the runner found, told to the model (see the module's docstring)."""
    word = verdict.verdict
    if word == "build-failed":
        errors = trim_compiler_errors(verdict.build_log, site, candidate)
        return f"It does not compile. The compiler said:\n```text\n{errors}\n```"
    if word == "incorrect":
        detail = verdict.validation_detail or verdict.message
        return ("It computes something else than the original. The runner called both on the "
                f"same inputs, and they differ: {detail}\n(Runner's verdict: "
                f"{verdict.message})")
    if word == "timeout":
        return (f"It did not finish in time on the runner's inputs ({verdict.message}). It "
                "must terminate on every input the original handles, and be faster.")
    figure = f"{verdict.speedup:.2f}×" if verdict.speedup is not None else "no gain"
    interval = (f" (95% interval {verdict.ci95[0]:.2f}–{verdict.ci95[1]:.2f})"
                if verdict.ci95 is not None else "")
    what = "slower than" if word == "slower" else "no faster than"
    return (f"It is correct but {what} the original: the original took "
            f"{_time(verdict.median_a_s)} per call, yours {_time(verdict.median_b_s)}, a "
            f"speedup of {figure}{interval} measured over {verdict.pairs} paired runs. Find "
            "what still costs time (the algorithm, allocation, memory traffic) and remove it.")


def repair_messages(site: FunctionSite, context: str, candidate: Candidate, verdict: Verdict,
                    round_: int) -> list[Message]:
    """Ask for a corrected version of ``candidate``, showing the runner's ``verdict``."""
    code = "".join(f"#include {h}\n" for h in candidate.includes) + candidate.code
    user = (
        f"Your rewrite of this {language_name(site)} function was built and checked against "
        f"the original (attempt {round_ + 1}).\n\n"
        f"{context_block(site, context)}{function_block(site)}"
        f"Your version:\n```{lang_tag(site)}\n{code.rstrip()}\n```\n\n"
        f"{feedback(site, candidate, verdict)}\n\n"
        "Write a corrected version that computes exactly the same results as the original "
        f"for every input and is faster. Reply with the code only, in this shape:\n"
        f"{answer_shape(site)}\n\n{code_rules(site)}"
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
