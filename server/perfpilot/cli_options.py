"""Command-line options shared by ``perfpilot`` subcommands (backends and runner)."""

from __future__ import annotations

import argparse
from typing import Any


def add_backend_flags(p: argparse.ArgumentParser, samples_default: int | None = None) -> None:
    """The planner/optimizer flags: ``--planner``, ``--optimizer``, ``--model`` and so on."""
    g = p.add_argument_group("backends")
    g.add_argument("--planner", choices=["builtin", "local", "remote"])
    g.add_argument("--optimizer", choices=["builtin", "local", "remote"])
    g.add_argument("--model", help="optimizer model (directory, .gguf file, or remote name)")
    g.add_argument("--planner-model", help="planner model (directory or .gguf file)")
    g.add_argument("--endpoint", help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1")
    g.add_argument("--api-key-env", help="name of the environment variable holding the API key")
    g.add_argument("--samples", type=int, default=samples_default, metavar="K",
                   help="candidates to generate (k)")
    g.add_argument("--allow-unsandboxed", action="store_true",
                   help="run code a model wrote even without bubblewrap (network isolation "
                        "and resource limits only)")


def setting_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The settings the backend and runner flags ask for, as a nested mapping."""
    over: dict[str, Any] = {"planner": {}, "optimizer": {}, "runner": {}}
    if getattr(args, "planner", None):
        over["planner"]["backend"] = args.planner
    if getattr(args, "optimizer", None):
        over["optimizer"]["backend"] = args.optimizer
    if getattr(args, "model", None):
        over["optimizer"]["model"] = args.model
        over["planner"].setdefault("model", args.model)
    if getattr(args, "planner_model", None):
        over["planner"]["model"] = args.planner_model
    for role in ("planner", "optimizer"):
        if getattr(args, "endpoint", None):
            over[role]["endpoint"] = args.endpoint
        if getattr(args, "api_key_env", None):
            over[role]["api_key_env"] = args.api_key_env
    if getattr(args, "samples", None):
        over["optimizer"]["samples"] = args.samples
    if getattr(args, "threads", None) is not None:
        over["runner"]["threads"] = args.threads
    if getattr(args, "compiler", None):
        over["runner"]["compiler"] = args.compiler
    if getattr(args, "allow_unsandboxed", False):
        over["runner"]["allow_unsandboxed"] = True
    return over
