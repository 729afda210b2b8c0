"""The [SUGG/] plan format: render/parse round trip and tolerance."""

from __future__ import annotations

import pytest

from perfpilot.strategy import CATEGORIES, Plan, Strategy, category_by_id, match_category
from perfpilot.strategy.plan_format import (
    parse_output,
    parse_plan,
    parse_strategies,
    render_plan,
)


def test_fifteen_categories_with_ids() -> None:
    assert [c.id for c in CATEGORIES] == list(range(1, 16))
    assert category_by_id(6).name == "Multithreading and Concurrency"
    assert category_by_id(15).name == "Efficient Library and API Utilization"
    assert all(c.description for c in CATEGORIES)


def test_round_trip_keeps_categories_explanations_lines_and_code() -> None:
    plan = Plan((
        Strategy(category_by_id(1), "Replace the nested scan over `v` with a hash set.", (5, 6)),
        Strategy(category_by_id(4), "Hoist `strlen(s)` out of the loop condition.", (9,)),
        Strategy(category_by_id(8), "Use '\\n' instead of std::endl: it flushes."),
    ), "builtin")
    code = "int f(int x) {\n    return x * x;\n}\n"
    text = render_plan(plan, code)
    parsed = parse_output(text)
    assert [(s.category, s.explanation, s.lines) for s in parsed.strategies] == [
        (s.category, s.explanation, s.lines) for s in plan.strategies]
    assert parsed.code == code
    assert parsed.had_plan_block and parsed.notes == ()


def test_think_blocks_prose_and_missing_opt() -> None:
    text = ("<think>Let me consider `- **Branching Efficiency**: no`</think>\nSure, here is my "
            "analysis.\n[SUGG/]\n- **Loop Efficiency Techniques**: fuse the two loops over `a`\n"
            "[/SUGG]\nThat is all.")
    parsed = parse_output(text)
    assert [s.category.id for s in parsed.strategies] == [4]
    assert parsed.code is None
    assert any("no optimized code" in n for n in parsed.notes)


def test_unterminated_think_and_missing_sugg_close() -> None:
    text = "[SUGG/]\n- **Data Structure Selection**: use unordered_map\n[OPT/]\n```cpp\nint g();\n"
    parsed = parse_output(text + "<think>never closed")
    assert [s.category.id for s in parsed.strategies] == [2]
    assert parsed.code == "int g();\n"


def test_fenced_code_fallback_without_markers() -> None:
    text = ("1. **Algorithm Design Optimization**: sort then scan\n\nHere is the code:\n"
            "```c++\nint h() { return 1; }\n```\nand some prose")
    parsed = parse_output(text)
    assert [s.category.id for s in parsed.strategies] == [1]
    assert parsed.code == "int h() { return 1; }\n"
    assert not parsed.had_plan_block


def test_spelling_drift_is_mapped_and_unknown_dropped_with_note() -> None:
    text = ("[SUGG/]\n- **Loop Effeciency Technique**: unroll\n- **multithreading & concurrency**"
            ": omp\n- **6. Multithreading and Concurrency**: again\n- **Quantum Tunnelling**: no\n"
            "[/SUGG]")
    plan = parse_plan(text, "local", model="m")
    assert [s.category.id for s in plan.strategies] == [4, 6, 6]
    assert any("Quantum Tunnelling" in n for n in plan.notes)
    assert plan.backend == "local" and plan.model == "m" and plan.raw_text == text


@pytest.mark.parametrize(("text", "cid"), [
    ("Algorithm Design Optimization", 1), ("algorithm design optimisation", 1),
    ("Input/Output Throughput Optimization", 8), ("Input Output Throughput Optimization", 8),
    ("12", 12), ("Numerical Computation", 12), ("Data Locality", 7), ("nonsense", None),
    ("Loop", None),
])
def test_match_category(text: str, cid: int | None) -> None:
    got = match_category(text)
    assert (got.id if got else None) == cid


_LINE_FORMATS = (
    "- **{name}**: {text}",
    "- **{name}:** {text}",
    "1. **{name}** — {text}",
    "* __{name}__ - {text}",
    "- {name}: {text}",
    "{name}: {text}",
    "- {name} - {text}",
    "2) {name} – {text}",
    "- {name} — {text}",
    "- {name}—{text}",
    "- {name}：{text}",
)


@pytest.mark.parametrize("shape", _LINE_FORMATS)
def test_every_category_parses_in_every_line_format(shape: str) -> None:
    # Names with a hyphen ("Instruction-Level ...", "Hardware-Aware ...") must not be cut at it.
    text = "explain the change to lines - and keep loop-invariant work out (lines 3-4)"
    block = "\n".join(shape.format(name=c.name, text=text) for c in CATEGORIES)
    strategies, notes = parse_strategies(block)
    assert notes == ()
    assert [s.category.id for s in strategies] == list(range(1, 16))
    assert {s.explanation for s in strategies} == {
        "explain the change to lines - and keep loop-invariant work out"}
    assert all(s.lines == (3, 4) for s in strategies)


def test_round_trip_covers_all_fifteen_categories() -> None:
    plan = Plan(tuple(Strategy(c, f"apply {c.name.lower()} here", (c.id,)) for c in CATEGORIES),
                "builtin")
    parsed = parse_output(render_plan(plan, "int f() { return 0; }\n"))
    assert [(s.category, s.explanation, s.lines) for s in parsed.strategies] == [
        (s.category, s.explanation, s.lines) for s in plan.strategies]
    assert parsed.notes == ()


def test_plain_line_with_an_unknown_name_is_noted_by_its_first_part() -> None:
    plan = parse_plan("[SUGG/]\n- Quantum-Tunnelling Speedup - no\n[/SUGG]", "local")
    assert plan.strategies == ()
    assert any("Quantum-Tunnelling Speedup" in n for n in plan.notes)
