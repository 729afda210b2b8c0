"""Whether a candidate may be built and run at all: the capability policy, and the sandbox
model-written code needs. A refusal is a ``rejected`` verdict that says why."""

from __future__ import annotations

from typing import Literal

from perfpilot.code.capabilities import Violation, check_candidate, describe
from perfpilot.code.site import FunctionSite
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


def sandbox_verdict(sandbox: Sandbox, settings: RunnerSettings, origin: Origin) -> Verdict | None:
    """A ``rejected`` verdict when model-written code would run without bubblewrap and the user
    has not allowed that; None when it may run."""
    if origin != "model" or sandbox.mode == "bwrap" or settings.allow_unsandboxed:
        return None
    return Verdict(verdict="rejected", message=NO_SANDBOX, validation_status="skipped",
                   validation_detail="not run: no sandbox on this machine",
                   sandbox=sandbox.describe(), notes=sandbox.notes)
