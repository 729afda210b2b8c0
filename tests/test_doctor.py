"""``perfpilot doctor`` reports the isolation this machine gives, with and without
bubblewrap."""

from __future__ import annotations

import json
import shutil

import pytest

from perfpilot.cli import main
from sandbox_support import path_without_bwrap


def _doctor(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(["doctor", "--json"]) == 0
    report: dict[str, object] = json.loads(capsys.readouterr().out)
    return report


def _check(report: dict[str, object], name: str) -> dict[str, object]:
    found = [c for c in report["checks"] if c["name"] == name]  # type: ignore[attr-defined]
    assert found, name
    check: dict[str, object] = found[0]
    return check


def test_doctor_reports_bubblewrap_and_the_tools(capsys: pytest.CaptureFixture[str]) -> None:
    report = _doctor(capsys)
    assert _check(report, "gcc")["ok"] == (shutil.which("gcc") is not None)
    assert _check(report, "valgrind")["ok"] == (shutil.which("valgrind") is not None)
    if shutil.which("bwrap") and _check(report, "bubblewrap")["ok"]:
        assert "inside bubblewrap" in str(report["model_code"])


def test_doctor_without_bubblewrap_says_model_code_does_not_run(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    with path_without_bwrap() as path:
        monkeypatch.setenv("PATH", path)
        report = _doctor(capsys)
    bwrap = _check(report, "bubblewrap")
    assert not bwrap["ok"] and "not installed" in str(bwrap["detail"])
    assert not _check(report, "seccomp filter")["ok"]
    assert "allowUnsandboxed" in str(report["model_code"])
