"""Backend flags set one role each; --samples and --timeout are checked; -v is not chatty."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from perfpilot.cli import _settings, build_parser
from perfpilot.cli_progress import ProgressPrinter

SRC = "int twice(int x) { return 2 * x; }\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "a.cpp").write_text(SRC)
    (tmp_path / ".perfpilot.toml").write_text(
        '[planner]\nbackend = "local"\nmodel = "/models/small-planner"\n')
    return tmp_path


def test_optimizer_flags_leave_a_configured_local_planner_alone(workspace: Path) -> None:
    args = build_parser().parse_args([
        "optimize", str(workspace / "a.cpp"), "-f", "twice", "--optimizer", "remote",
        "--model", "served-coder", "--endpoint", "http://127.0.0.1:9/v1",
        "--api-key-env", "CODER_KEY", "--samples", "3", "--timeout", "600",
        "--trust-workspace"])
    s = _settings(args, workspace)
    assert (s.planner.backend, s.planner.model, s.planner.endpoint, s.planner.api_key_env) == (
        "local", "/models/small-planner", "", "")
    assert (s.optimizer.backend, s.optimizer.model, s.optimizer.endpoint) == (
        "remote", "served-coder", "http://127.0.0.1:9/v1")
    assert s.optimizer.api_key_env == "CODER_KEY" and s.optimizer.samples == 3
    assert s.planner.timeout_s == s.optimizer.timeout_s == 600.0


def test_planner_flags_set_the_planner_only(workspace: Path) -> None:
    args = build_parser().parse_args([
        "plan", str(workspace / "a.cpp"), "-f", "twice", "--planner", "remote",
        "--planner-model", "plan-model", "--planner-endpoint", "http://127.0.0.1:8/v1",
        "--planner-api-key-env", "PLAN_KEY"])
    s = _settings(args, workspace)
    assert (s.planner.backend, s.planner.model, s.planner.endpoint, s.planner.api_key_env) == (
        "remote", "plan-model", "http://127.0.0.1:8/v1", "PLAN_KEY")
    assert (s.optimizer.model, s.optimizer.endpoint) == ("", "")


def test_check_endpoint_points_the_plain_flags_at_its_role(workspace: Path) -> None:
    args = build_parser().parse_args(["check-endpoint", "--role", "planner", "--model", "m",
                                      "--endpoint", "http://127.0.0.1:7/v1"])
    s = _settings(args, workspace, role=args.role)
    assert (s.planner.model, s.planner.endpoint) == ("m", "http://127.0.0.1:7/v1")
    assert (s.optimizer.model, s.optimizer.endpoint) == ("", "")


@pytest.mark.parametrize(("flag", "value"), [("--samples", "0"), ("--samples", "-2"),
                                             ("--timeout", "0"), ("--samples", "two")])
def test_bad_numbers_are_usage_errors(workspace: Path, flag: str, value: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "perfpilot", "optimize",
                           str(workspace / "a.cpp"), "-f", "twice", flag, value],
                          capture_output=True, text=True, cwd=workspace)
    assert proc.returncode == 2
    assert flag in proc.stderr and "Traceback" not in proc.stderr


def test_model_errors_name_the_role_and_exit_3(workspace: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "perfpilot", "plan", str(workspace / "a.cpp"),
                           "-f", "twice", "--planner", "remote", "--trust-workspace"],
                          capture_output=True, text=True, cwd=workspace)
    assert proc.returncode == 3, proc.stderr
    assert proc.stderr.startswith("perfpilot: planner: no endpoint URL"), proc.stderr


def test_verbose_progress_prints_stages_not_every_tick() -> None:
    lines: list[str] = []
    now = [0.0]
    printer = ProgressPrinter(lines.append, every_s=10.0, clock=lambda: now[0])
    printer("planning", "planning twice", None)
    for tokens in range(1, 200):  # five reports a second, for 40 s
        now[0] += 0.2
        printer("generating", f"{tokens} tokens", None)
    printer("building", "compiling", 5)
    assert lines[0] == "[planning] planning twice" and lines[-1] == "[building] compiling"
    generating = [line for line in lines if line.startswith("[generating]")]
    assert 1 <= len(generating) <= 4, generating
