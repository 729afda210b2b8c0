"""Command-line options shared by ``perfpilot`` subcommands (backends and runner).

Each flag sets one role: ``--model``, ``--endpoint`` and ``--api-key-env`` the optimizer's,
``--planner-model``, ``--planner-endpoint`` and ``--planner-api-key-env`` the planner's, so a
remote optimizer given on the command line never replaces a local planner configured in
``.perfpilot.toml`` (``check-endpoint`` points the plain flags at the role it checks).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from perfpilot.settings import REFERENCE_ANSWERS

ROLES = ("planner", "optimizer")


def positive_int(text: str) -> int:
    """An argparse type: an integer of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def non_negative_int(text: str) -> int:
    """An argparse type: an integer of at least 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def positive_float(text: str) -> float:
    """An argparse type: a number of seconds above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, not {text}")
    return value


def budget_seconds(text: str) -> float:
    """An argparse type: seconds of a budget, 0 for none."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
    return value


def add_budget_flag(p: argparse.ArgumentParser) -> None:
    """``--job-budget SECONDS``: the runner's job budget (``runner.jobBudgetS``)."""
    p.add_argument("--job-budget", type=budget_seconds, metavar="SECONDS",
                   help="seconds the job may spend measuring before it stops with a timeout "
                        "that names the stage (0: no limit; default 120)")


def add_backend_flags(p: argparse.ArgumentParser, samples_default: int | None = None) -> None:
    """The planner/optimizer flags: ``--planner``, ``--optimizer``, ``--model`` and so on."""
    g = p.add_argument_group("backends")
    g.add_argument("--planner", choices=["builtin", "local", "remote"])
    g.add_argument("--optimizer", choices=["builtin", "local", "remote", "replay"],
                   help="who rewrites: the builtin rules, a local or remote model, or "
                        "replay (answers written beforehand, read from --answers)")
    g.add_argument("--answers", metavar="DIR",
                   help="with --optimizer replay: the folder of answers (<function>.md, "
                        "<function>.2.md, <function>.repair1.md; see docs/models.md)")
    g.add_argument("--repair-rounds", type=non_negative_int, metavar="N",
                   help="times a model candidate that failed to build, was wrong or was not "
                        "faster goes back to the model with the verdict (default 1; 0: off)")
    g.add_argument("--model", help="the optimizer's model (directory, .gguf file, or the name "
                                   "a remote server knows it by)")
    g.add_argument("--endpoint", help="the optimizer's OpenAI-compatible base URL, e.g. "
                                      "http://127.0.0.1:8000/v1")
    g.add_argument("--api-key-env", help="environment variable holding the optimizer's API key")
    g.add_argument("--planner-model", help="the planner's model (directory, .gguf file, or "
                                           "remote name)")
    g.add_argument("--planner-endpoint", help="the planner's OpenAI-compatible base URL")
    g.add_argument("--planner-api-key-env",
                   help="environment variable holding the planner's API key")
    g.add_argument("--samples", type=positive_int, default=samples_default, metavar="K",
                   help="candidates the optimizer generates (k, at least 1)")
    g.add_argument("--timeout", type=positive_float, metavar="SECONDS",
                   help="how long a model may go without sending anything before its request "
                        "fails (both roles; default 120)")
    g.add_argument("--allow-unsandboxed", action="store_true",
                   help="run code a model wrote even without bubblewrap (network isolation "
                        "and resource limits only)")
    g.add_argument("--records", metavar="DIR",
                   help="append a training record of every measurement to DIR "
                        "(default: the workspace's .perfpilot/records/)")
    g.add_argument("--no-records", action="store_true",
                   help="keep no training records of the measurements")


def setting_overrides(args: argparse.Namespace, role: str = "") -> dict[str, Any]:
    """The settings the backend and runner flags ask for, as a nested mapping.

    ``role`` (``check-endpoint``) points ``--model``, ``--endpoint`` and ``--api-key-env`` at
    that role instead of the optimizer.
    """
    over: dict[str, Any] = {"planner": {}, "optimizer": {}, "runner": {}}
    plain = role or "optimizer"
    for name in ROLES:
        if getattr(args, name, None):
            over[name]["backend"] = getattr(args, name)
    for key in ("model", "endpoint", "api_key_env"):
        value = getattr(args, key, None)
        if value:
            over[plain][key] = value
        planner_value = getattr(args, f"planner_{key}", None)
        if planner_value:
            over["planner"][key] = planner_value
    if getattr(args, "samples", None) is not None:
        over["optimizer"]["samples"] = args.samples
    answers = getattr(args, "answers", None)
    if answers:
        # A folder named on the command line is the user's own: resolved against the working
        # directory, not the workspace. ``reference`` is evaluation's word for the tasks' own.
        over["optimizer"]["answers"] = answers if answers == REFERENCE_ANSWERS \
            else str(Path(answers).expanduser().resolve())
    if getattr(args, "repair_rounds", None) is not None:
        over["optimizer"]["repair_rounds"] = args.repair_rounds
    if getattr(args, "timeout", None) is not None:
        for name in ROLES:
            over[name]["timeout_s"] = args.timeout
    if getattr(args, "threads", None) is not None:
        over["runner"]["threads"] = args.threads
    if getattr(args, "compiler", None):
        over["runner"]["compiler"] = args.compiler
    if getattr(args, "allow_unsandboxed", False):
        over["runner"]["allow_unsandboxed"] = True
    if getattr(args, "job_budget", None) is not None:
        over["runner"]["job_budget_s"] = args.job_budget
    if getattr(args, "records", None):
        over["records"] = {"folder": str(Path(args.records).resolve())}
    if getattr(args, "no_records", False):
        over["records"] = {"enabled": False}
    return over
