"""A bench spec is measured only once it is complete: never empty, never a draft's TODOs."""

from __future__ import annotations

from pathlib import Path

from perfpilot.code.locate import function_by_name
from perfpilot.engine.spec_drafts import spec_unfinished
from perfpilot.runner.spec_draft import draft_spec

SOURCE = """\
struct Handle;
long tag_of(const Handle* h);

long ends(const Handle* h) { return tag_of(h); }
"""


def test_empty_and_drafted_specs_are_unfinished_and_a_completed_one_is_not(
        tmp_path: Path) -> None:
    spec = tmp_path / "ends.bench.cpp"
    spec.write_text("")
    assert spec_unfinished(spec)
    draft = draft_spec(function_by_name(SOURCE, "cpp", "ends"))
    spec.write_text(draft)
    assert "TODO" in draft and spec_unfinished(spec)
    spec.write_text("\n".join(line for line in draft.splitlines() if "TODO" not in line))
    assert not spec_unfinished(spec)
    # Only specs: another input with the word in it is never held back.
    other = tmp_path / "big.in"
    other.write_text("// TODO\n")
    assert not spec_unfinished(other)
