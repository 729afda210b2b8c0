"""Presentation of plans and measurements: untrusted text is escaped, numbers are formatted."""

from __future__ import annotations

import re
from dataclasses import replace

from perfpilot.engine.present import escape_md, escape_md_keep_code, plan_markdown, speedup_phrase
from perfpilot.runner.values import Verdict
from perfpilot.strategy import Plan, Strategy, category_by_id


def test_model_text_cannot_inject_links_html_or_commands() -> None:
    evil = "[click](command:workbench.action.terminal.new) <img src=x onerror=alert(1)> **b**"
    out = escape_md(evil)
    # What could open a link, an image, a tag or emphasis is backslash-escaped.
    assert not re.search(r"(?<!\\)[\[\]*]|(?<!\\)<[a-z]", out)
    assert "\\[click\\]" in out and "\\<img" in out


def test_plain_figures_and_words_carry_no_escapes() -> None:
    # A client that shows markdown as text (Neovim) sees no backslashes in ordinary text.
    text = "2.31× faster (95% CI 2.20–2.43, serial) on third_moment with -O2, g++ a < b"
    assert escape_md(text) == text
    # Block markup is escaped only where it would start a block: the start of a line.
    assert escape_md("1. item") == "1\\. item" and escape_md("# h") == "\\# h"
    assert escape_md("_x_") == "\\_x\\_"


def test_plain_text_hover_has_no_markup() -> None:
    from perfpilot.engine.present import plain_text

    md = ("**Result:** 2.31× faster\n\n| measure | value |\n|---|---|\n"
          "| flags | -O2 \\| x |\n1. **Loop**: hoist `v.size()` _(lines 3, 4)_")
    assert plain_text(md) == ("Result: 2.31× faster\n\nmeasure: value\nflags: -O2 | x\n"
                              "1. Loop: hoist v.size() (lines 3, 4)")


def test_code_spans_survive_but_stay_inert() -> None:
    text = "call `strlen(s)` once; see [x](http://e.vil) `a<b>`"
    out = escape_md_keep_code(text)
    assert "`strlen(s)`" in out and "`a<b>`" in out
    assert "[x](" not in out
    assert escape_md_keep_code("unclosed `tick") == escape_md("unclosed `tick")


def test_plan_markdown_lists_category_explanation_and_lines() -> None:
    plan = Plan((Strategy(category_by_id(4), "hoist `v.size()` <b>", (3, 4)),), "remote",
                model="m*")
    md = plan_markdown(plan, "f")
    assert "1. **Loop Efficiency Techniques**: hoist `v.size()` \\<b>" in md
    assert "_(lines 3, 4)_" in md and "m\\*" in md


def test_speedup_phrases() -> None:
    serial = Verdict(verdict="faster", message="", speedup=2.314, ci95=(2.2, 2.43), threads=1)
    assert speedup_phrase(serial) == "2.31× faster (95% CI 2.20–2.43, serial)"
    omp = Verdict(verdict="faster", message="", speedup=1.95, ci95=(1.92, 1.99), threads=2,
                  serial_speedup=1.0, serial_ci95=(0.98, 1.02), flags=("-O2", "-fopenmp"))
    # A parallel result says what it needs and what it gives on one thread, in words.
    assert speedup_phrase(omp) == ("1.95× faster on 2 threads with -fopenmp (95% CI 1.92–1.99);"
                                   " 1.00× on 1 thread (no gain)")
    gain = replace(omp, serial_speedup=1.2, serial_ci95=(1.15, 1.25))
    assert speedup_phrase(gain).endswith("; 1.20× on 1 thread")
    loss = replace(omp, serial_speedup=0.8, serial_ci95=(0.75, 0.85))
    assert speedup_phrase(loss).endswith("; 0.80× on 1 thread (slower)")
    unmeasured = replace(omp, serial_speedup=None, serial_ci95=None)
    assert speedup_phrase(unmeasured).endswith("; not measured on 1 thread")
    noisy = Verdict(verdict="noisy", message="", speedup=1.4, ci95=(0.5, 3.0))
    assert "×" not in speedup_phrase(noisy)  # no number when it could not be measured


def test_the_report_shows_candidate_notes_and_the_headers_it_adds() -> None:
    from perfpilot.code.locate import function_by_name
    from perfpilot.engine.outcome import Outcome, Trial
    from perfpilot.engine.present import report_markdown
    from perfpilot.strategy import Candidate

    site = function_by_name("void f(int* a, int n) { }\n", "cpp", "f")
    cand = Candidate("void f(int* a, int n) { std::sort(a, a + n); }", (), "remote",
                     notes=("model m", "adds #include <algorithm>", "a <b> note"),
                     includes=("<algorithm>",))
    md = report_markdown(Outcome(site, Plan((), "builtin"), (Trial(cand),), (), 0,
                                 "unmeasured", "1 candidate(s), not measured"))
    assert "- adds #include \\<algorithm>" in md and "- a \\<b> note" in md
    assert "```cpp\n#include <algorithm>\nvoid f(int* a, int n) { std::sort" in md


def test_the_report_keeps_the_planner_answer_it_could_not_read() -> None:
    from perfpilot.code.locate import function_by_name
    from perfpilot.engine.outcome import Outcome
    from perfpilot.engine.present import report_markdown

    site = function_by_name("void f(int* a, int n) { }\n", "cpp", "f")
    plan = Plan((), "builtin", raw_text="I would [click](command:x) ```rm``` it",
                notes=("the planner local:m's answer had no strategy PerfPilot could read",),
                model="m")
    md = report_markdown(Outcome(site, plan, (), (), None, "no-candidate", "none"))
    assert "### The planner's answer (m)" in md
    assert "```text\nI would [click](command:x) ʼʼʼrmʼʼʼ it\n```" in md


def test_intervals_have_one_format_in_phrase_and_table() -> None:
    from perfpilot.engine.present import measurement_table

    v = Verdict(verdict="faster", message="", speedup=2.3456, ci95=(2.2049, 2.4351), threads=1)
    assert "95% CI 2.20–2.44" in speedup_phrase(v)
    table = measurement_table(v)
    assert "| 95% interval | 2.20–2.44 |" in table, table
    assert "| speedup (median of pair ratios) | 2.35× |" in table, table


def test_an_improved_outcome_says_its_figures_in_the_one_format() -> None:
    from perfpilot.code.locate import function_by_name
    from perfpilot.engine.engine import choose
    from perfpilot.engine.outcome import Trial
    from perfpilot.strategy import Candidate

    site = function_by_name("int f(int a) { return a; }\n", "cpp", "f")
    v = Verdict(verdict="faster", message="1.5e+03× faster (95% CI 380–4.84e+03, serial).",
                speedup=1497.0, ci95=(380.2, 4843.0), threads=1)
    outcome = choose(site, Plan((), "builtin"), (Trial(Candidate("int f(int a){return a;}", (),
                                                                  "builtin"), v),))
    assert outcome.status == "improved"
    assert outcome.message == "1497× faster (95% CI 380–4843, serial)"


def test_a_function_the_harness_cannot_feed_says_so_and_offers_the_draft() -> None:
    from perfpilot.code.locate import function_by_name
    from perfpilot.engine.engine import choose
    from perfpilot.engine.outcome import Trial
    from perfpilot.engine.present import hover_markdown, lens_title, report_markdown
    from perfpilot.strategy import Candidate

    site = function_by_name("struct H;\nlong ends(const H* h) { return h != 0; }\n", "cpp",
                            "ends")
    reason = "parameter 'h' is a pointer to an incomplete type"
    v = Verdict(verdict="needs-spec", needs_spec=True, validation_detail=reason,
                message=f"PerfPilot cannot build inputs for ends: {reason}.",
                build_log=f"{reason} ('perfpilot spec --draft /abs/ends.cpp --function ends' "
                          "drafts one)")
    outcome = choose(site, Plan((), "builtin"),
                     (Trial(Candidate("long ends(const H* h) { return !!h; }", (), "builtin"),
                            v),))
    assert outcome.chosen is None
    # The outcome is about the function, not a rewrite that failed to build.
    assert outcome.message == f"PerfPilot cannot build inputs for ends: {reason}."
    assert lens_title(outcome) == f"PerfPilot cannot build inputs for ends: {reason}"
    assert speedup_phrase(v) == "cannot build inputs (needs a bench spec)"
    hover = hover_markdown(outcome)
    assert "**PerfPilot cannot build inputs for `ends`:**" in hover
    assert "Draft a bench spec for ends" in hover and "| measure |" not in hover
    report = report_markdown(outcome)
    assert "Draft a bench spec for ends" in report
    # Never the command line with an absolute path: the editor's quick fix drafts the spec.
    for text in (outcome.message, lens_title(outcome), hover, report):
        assert "/abs/ends.cpp" not in text and "perfpilot spec" not in text


def test_figures_keep_two_decimals_below_100_and_none_above() -> None:
    from perfpilot.engine.figures import interval, ratio

    assert ratio(2.314) == "2.31×" and ratio(99.5) == "99.50×"
    assert ratio(1585.04) == "1585×"
    assert interval((1364.33, 1687.11)) == "1364–1687" and interval((0.98, 1.2)) == "0.98–1.20"


# What the builtin planner writes for a copied parameter, a reduction and a hoisted call.
COPY = ("Parameter `values` (`std::vector<long long>`, line 6) is passed by value, so every "
        "call to `sum_values` copies the whole container (an allocation plus a copy of every "
        "element), although the function never modifies `values`: take it as "
        "`const std::vector<long long> &values`.")
OMP = ("The `for` loop on line 8 (over `i`, 0 to values.size()) — its iterations are "
       "independent except for accumulating into `total` (+), a reduction: run it on all "
       "cores with `#pragma omp parallel for reduction(+:total)` (build with `-fopenmp`).")


def test_a_brief_reason_is_what_to_do_in_a_few_words() -> None:
    from perfpilot.engine.present import brief_reason

    assert brief_reason(COPY) == "take it as `const std::vector<long long> &values`"
    # Never cut inside code, never ending on "with".
    assert brief_reason(OMP) == "run it on all cores…"
    assert brief_reason("hoist `v.size()`; it is loop-invariant. More.") == "hoist `v.size()`"
    # No colon: the first clause; a colon inside code is not a clause's end.
    assert brief_reason("use `a::b` here. Then more") == "use `a::b` here"
    long = "word " * 30
    assert brief_reason(long).endswith("…") and len(brief_reason(long)) <= 61


def test_the_hover_is_one_line_per_strategy_and_one_per_result_fact() -> None:
    from perfpilot.code.locate import function_by_name
    from perfpilot.engine.engine import choose
    from perfpilot.engine.outcome import Trial
    from perfpilot.engine.present import hover_markdown, plain_text
    from perfpilot.runner.values import Verification
    from perfpilot.strategy import Candidate

    site = function_by_name("long f(int a) { return a; }\n", "cpp", "f")
    plan = Plan((Strategy(category_by_id(6), OMP, (8,)),
                 Strategy(category_by_id(10), COPY, (6,)),
                 Strategy(category_by_id(4), "hoist it <b>", (8,), advice="no rewrite")),
                "builtin")
    v = Verdict(verdict="faster", message="", speedup=8.9, ci95=(8.7, 9.39), threads=1,
                pairs=30, verification=Verification(cases=12, sizes=(4,), mutants=3, killed=3))
    outcome = choose(site, plan, (Trial(Candidate("long f(int a){return a;}", (), "builtin"),
                                        v),))
    hover = hover_markdown(outcome)
    lines = hover.splitlines()
    assert lines[2:5] == [
        "1. **Multithreading and Concurrency**: run it on all cores… _(line 8)_",
        "2. **Function Call Overhead Reduction**: take it as "
        "`const std::vector<long long> &values` _(line 6)_",
        "3. **Loop Efficiency Techniques**: hoist it \\<b> _(line 8)_ — _advice_"], lines
    # The result and how it was checked: one paragraph, a line each; no table.
    assert lines[6:] == ["**Result:** 8.90× faster (95% CI 8.70–9.39, serial)  ",
                         "**Checked:** 12 inputs, 3/3 mutants killed; 30 pairs timed"], lines
    assert "| measure |" not in hover and "allocation" not in hover
    assert plain_text(hover).splitlines()[-2:] == [
        "Result: 8.90× faster (95% CI 8.70–9.39, serial)",
        "Checked: 12 inputs, 3/3 mutants killed; 30 pairs timed"]


def test_a_callee_strategy_in_the_hover_names_the_callee() -> None:
    from perfpilot.engine.present import plan_brief

    s = Strategy(category_by_id(15), "In `order`, called from line 12: it swaps neighbours "
                 "pass after pass: sort with `std::sort`.", (7, 12), callee="order")
    assert plan_brief(Plan((s,), "builtin"), "gap").splitlines()[2] == (
        "1. **Efficient Library and API Utilization**: in `order`, sort with `std::sort` "
        "_(lines 7, 12)_")
