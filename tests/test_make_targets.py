"""The Makefile's setup weight: the .vsix needs only the core install, never the model extras."""

from __future__ import annotations

import re
from pathlib import Path

MAKEFILE = Path(__file__).resolve().parent.parent / "Makefile"


def _prerequisites(target: str) -> list[str]:
    match = re.search(rf"^{re.escape(target)}:([^\n=]*)$", MAKEFILE.read_text(), re.MULTILINE)
    assert match is not None, f"no rule for {target}"
    return match.group(1).split()


def test_vsix_needs_only_the_core_install() -> None:
    assert _prerequisites("vsix") == ["setup-core"]
    # The core install is the package alone: no extras (torch, transformers) in its rule.
    core_rule = MAKEFILE.read_text().split("$(CORE): pyproject.toml", 1)[1].split("\n\n", 1)[0]
    assert "pip install" in core_rule and "-e ." in core_rule and "[" not in core_rule


def test_the_profiled_example_ignores_its_build_folder() -> None:
    example = MAKEFILE.parent / "examples" / "profiled"
    assert "/build/" in (example / ".gitignore").read_text().splitlines()
    assert "-B build" in (example / ".perfpilot.toml").read_text()
