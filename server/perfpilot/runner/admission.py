"""Whether a candidate may be built and run at all: the capability policy, and the sandbox
model-written code needs. A refusal is a ``rejected`` verdict that says why."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Literal

from perfpilot.code.site import FunctionSite
from perfpilot.runner.capabilities import Violation, check_candidate, describe
from perfpilot.runner.object_policy import (
    ObjectUnreadable,
    ObjectViolation,
    object_violations,
    unit_violations,
)
from perfpilot.runner.sandbox import Sandbox
from perfpilot.runner.values import Verdict
from perfpilot.settings import RunnerSettings

# Where a candidate came from: the builtin rules, a model, or the user (files they named, the
# text now in their editor). Only candidates of the first two are held to the policy.
Origin = Literal["builtin", "model", "user"]

NO_SANDBOX = ("Not run: this machine has no working bubblewrap sandbox, and code a model wrote "
              "only runs inside one. Install bubblewrap (the `bwrap` command), or set "
              "perfpilot.runner.allowUnsandboxed to run it with only network isolation and "
              "resource limits.")


def policy_violations(original: FunctionSite, code: str, includes: tuple[str, ...] = (),
                      *, whole_unit: bool = False) -> tuple[Violation, ...]:
    """What the capability policy refuses in ``code`` (empty: it may be built)."""
    return check_candidate(original, code, includes, whole_unit=whole_unit)


def policy_verdict(original: FunctionSite, code: str, includes: tuple[str, ...] = (), *,
                   origin: Origin = "model", whole_unit: bool = False) -> Verdict | None:
    """A ``rejected`` verdict naming the refused constructs, or None when ``code`` may be
    built (or comes from the user, whose own code is not policed)."""
    if origin == "user":
        return None
    found = policy_violations(original, code, includes, whole_unit=whole_unit)
    if not found:
        return None
    return Verdict(
        verdict="rejected",
        message=f"Rejected by the capability policy, never built: {describe(found)}.",
        validation_status="skipped",
        validation_detail=describe(found, 1),
        notes=tuple(v.describe() if v.line else f"`{v.construct}` — {v.reason}"
                    for v in found),
    )


async def object_verdict(base: Verdict, workdir: Path, original: str, candidate: str,
                         entry: str, *, state: bool = True,
                         whole_units: tuple[tuple[str, str], ...] = ()) -> Verdict | None:
    """A ``rejected`` verdict (``base`` with the verdict, message and notes replaced) when the
    candidate's compiled object does what the policy refuses; None when it may run.

    ``original`` and ``candidate`` are the objects ``build.compile_check_object`` made (paths
    relative to ``workdir``), judged from the function ``entry``; ``state=False`` lets whole
    programs keep state. ``whole_units`` are pairs of other builds (original, candidate) that
    will run too, compared on the whole unit's imports.
    """
    try:
        found = await object_violations(workdir / original, workdir / candidate, entry,
                                        state=state)
    except ObjectUnreadable as exc:
        found = (_unreadable(exc),)
    found += await whole_unit_violations(workdir, whole_units)
    unique = tuple({v.describe(): v for v in found}.values())  # a build pair may repeat one
    return object_refusal(base, unique)


def _unreadable(exc: ObjectUnreadable) -> ObjectViolation:
    return ObjectViolation("object", f"cannot be read to check what it calls ({exc})")


async def whole_unit_violations(workdir: Path, pairs: tuple[tuple[str, str], ...]
                                ) -> tuple[ObjectViolation, ...]:
    """What each candidate build of ``pairs`` (original, candidate; relative to ``workdir``)
    imports that the original's same build does not, beyond pure library work."""
    found: list[ObjectViolation] = []
    for a, b in pairs:
        try:
            found += await unit_violations(workdir / a, workdir / b)
        except ObjectUnreadable as exc:
            found.append(_unreadable(exc))
    return tuple(found)


def object_refusal(base: Verdict, found: tuple[ObjectViolation, ...],
                   limit: int = 3) -> Verdict | None:
    """``base`` turned into the ``rejected`` verdict naming ``found``; None when empty."""
    if not found:
        return None
    clauses = "; ".join(v.describe() for v in found[:limit])
    more = f"; and {len(found) - limit} more" if len(found) > limit else ""
    return replace(
        base, verdict="rejected",
        message=f"Rejected by the capability policy before it ran: the compiled candidate "
                f"{clauses}{more}.",
        validation_status="skipped", validation_detail=found[0].describe(),
        notes=(*base.notes, *(f"compiled candidate {v.describe()}" for v in found)))


def sandbox_verdict(sandbox: Sandbox, settings: RunnerSettings, origin: Origin) -> Verdict | None:
    """A ``rejected`` verdict when model-written code would run without bubblewrap and the user
    has not allowed that; None when it may run."""
    if origin != "model" or sandbox.mode == "bwrap" or settings.allow_unsandboxed:
        return None
    return Verdict(verdict="rejected", message=NO_SANDBOX, validation_status="skipped",
                   validation_detail="not run: no sandbox on this machine",
                   sandbox=sandbox.describe(), notes=sandbox.notes)
