"""fast-io: the fix acts on the stream uses detection proved, rewrites only ``main`` of a
program without C stdio, and names the use it leaves, with the reason, otherwise."""

from __future__ import annotations

from perfpilot.code.locate import function_by_name
from perfpilot.rules.io.fast_io import RULE, StreamsInLoops
from perfpilot.rules.rewriting import rule_input


def _run(code: str, name: str) -> tuple[list[str], list[str], list[StreamsInLoops]]:
    site = function_by_name(code, "cpp", name, uri="file:///t.cc", check_errors=False)
    inp = rule_input(site, site.text)
    assert inp is not None and RULE.rewrite is not None
    proofs = [f.proof for f in RULE.detect(inp.facts) if isinstance(f.proof, StreamsInLoops)]
    changes, notes = RULE.rewrite(inp)
    return [e.text for c in changes for e in c.edits], notes, proofs


def test_main_is_unsynchronized_once_before_its_first_statement() -> None:
    edits, notes, proofs = _run(
        "#include <iostream>\nint main() {\n  int n; std::cin >> n;\n"
        "  for (int i = 0; i < n; ++i) std::cout << i << '\\n';\n  return 0;\n}\n", "main")
    assert proofs[0].streams == ("cout",)
    assert edits == ["\n  std::ios::sync_with_stdio(false);\n  std::cin.tie(nullptr);"]
    assert notes == []


def test_a_function_other_than_main_is_left_with_the_line_of_its_stream_use() -> None:
    edits, notes, _ = _run(
        "#include <iostream>\nvoid show(int n) {\n"
        "  for (int i = 0; i < n; ++i) std::cout << i << '\\n';\n}\n", "show")
    assert edits == []
    assert len(notes) == 1
    assert notes[0].startswith("fast-io: `std::cout << i << '\\n'` on line 3 stays: ")
    assert "only at the start of `main`" in notes[0]


def test_only_cerr_in_the_loop_is_left_with_its_reason() -> None:
    edits, notes, proofs = _run(
        "#include <iostream>\nint main() {\n"
        "  for (int i = 0; i < 3; ++i) std::cerr << i;\n  return 0;\n}\n", "main")
    assert proofs[0].streams == ("cerr",)
    assert edits == []
    assert len(notes) == 1 and "only `std::cerr`" in notes[0] and "line 3" in notes[0]
