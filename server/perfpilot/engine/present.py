"""Presentation: lens titles, hover and report markdown, built from engine values.

Model text is untrusted: everything that came from a plan or a compiler is escaped, and no
command links are ever produced from it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from perfpilot.engine.figures import interval, ratio
from perfpilot.engine.outcome import Outcome, Trial
from perfpilot.engine.racing import Race, figure, race_phrase
from perfpilot.strategy.values import Candidate, Plan, advice_label

if TYPE_CHECKING:
    from perfpilot.runner.values import Verdict

# What can start markup anywhere in a line: escapes, code, emphasis, links and images (the
# brackets), tables, strikethrough; ``<`` only where it could open a tag or an autolink, ``_``
# only at a word's edge (``third_moment`` stays as it is: no emphasis inside a word).
_MD_INLINE = re.compile(r"([\\`*\[\]|~]|<(?=[A-Za-z/!?])|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")
# What starts a block only at the beginning of a line: headings, quotes, list items, rules.
_MD_LINE_START = re.compile(r"(?m)^([ \t]*)(#|>|[-+](?=\s|$)|[=-]+$)")
_MD_ORDERED = re.compile(r"(?m)^([ \t]*\d+)([.)])(?=\s|$)")
_MD_ENTITY = re.compile(r"&(?=#?[A-Za-z0-9]+;)")


def escape_md(text: str) -> str:
    """Escape markdown and HTML so untrusted text renders literally: no link, image, tag,
    command or emphasis can form. Only what could start markup is escaped, so a client that
    shows markdown as text (Neovim) shows few backslashes: ``1.28 (a, b)`` stays as it is."""
    text = _MD_ENTITY.sub("&amp;", text)
    text = _MD_INLINE.sub(r"\\\1", text)
    text = _MD_ORDERED.sub(r"\1\\\2", text)
    return _MD_LINE_START.sub(lambda m: f"{m.group(1)}\\{m.group(2)}", text)


_TABLE_RULE = re.compile(r"^\|?(\s*:?-{3,}:?\s*\|)+\s*:?-*:?\s*$")
_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


def plain_text(markdown: str) -> str:
    """The hover's markdown as plain text, for a client that does not render markdown:
    no emphasis markers, code ticks or escapes; a table row becomes ``measure: value``."""
    out: list[str] = []
    for line in markdown.splitlines():
        if _TABLE_RULE.match(line.strip()):
            continue
        stripped = line.strip()
        if stripped.startswith("|") and stripped.endswith("|"):
            cells = [c.strip() for c in _UNESCAPED_PIPE.split(stripped[1:-1])]
            line = ": ".join(cells) if len(cells) == 2 else "  ".join(cells)
        line = re.sub(r"\*\*(.+?)\*\*", r"\1", line)
        line = re.sub(r"(?<![A-Za-z0-9\\])_\((.+?)\)_(?![A-Za-z0-9])", r"(\1)", line)
        line = re.sub(r"`([^`]*)`", r"\1", line)
        line = re.sub(r"\\(.)", r"\1", line)
        out.append(line.rstrip().replace("&amp;", "&"))
    return "\n".join(out)


_CODE_SPAN = re.compile(r"`([^`\n]{1,200})`")


def escape_md_keep_code(text: str) -> str:
    """Like ``escape_md``, but `code spans` stay code spans.

    A code span cannot carry a link, HTML or a command, so keeping them is safe for model text
    and lets explanations show identifiers as code.
    """
    out: list[str] = []
    pos = 0
    for m in _CODE_SPAN.finditer(text):
        out.append(escape_md(text[pos:m.start()]))
        out.append(f"`{m.group(1)}`")
        pos = m.end()
    out.append(escape_md(text[pos:]))
    return "".join(out)


def _lines(lines: tuple[int, ...]) -> str:
    if not lines:
        return ""
    if len(lines) == 1:
        return f"line {lines[0]}"
    return "lines " + ", ".join(str(n) for n in lines[:6]) + ("…" if len(lines) > 6 else "")


def _plan_head(plan: Plan, function: str) -> str:
    head = f"**PerfPilot plan for `{function}`** ({escape_md(plan.backend)}"
    return head + (f", {escape_md(plan.model)})" if plan.model else ")")


def plan_markdown(plan: Plan, function: str) -> str:
    """The plan as a numbered markdown list: category, escaped explanation, evidence lines,
    and for a strategy the built-in rewriter leaves to the user, why (``Strategy.advice``)."""
    head = _plan_head(plan, function)
    if not plan.strategies:
        return head + "\n\nNo optimization opportunity found."
    out = [head, ""]
    for i, s in enumerate(plan.strategies, 1):
        where = _lines(s.lines)
        suffix = f" _({where})_" if where else ""
        if s.advice:  # on the item's own line: a line of its own would join the paragraph
            suffix += f" — _{escape_md_keep_code(advice_label(s.advice))}_"
        out.append(f"{i}. **{s.category.name}**: {escape_md_keep_code(s.explanation)}{suffix}")
    return "\n".join(out)


_BRIEF_CHARS = 60  # a hover line per strategy: category, this much reason and its lines
# Words a shortened reason does not end on: "run it on all cores with…" says less than
# "run it on all cores…".
_DANGLING = frozenset({"a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "it",
                       "of", "on", "or", "the", "to", "with"})


def _top_level(text: str) -> list[tuple[int, str]]:
    """Each character of ``text`` outside code spans and parentheses, with its position."""
    out: list[tuple[int, str]] = []
    code = False
    depth = 0
    for i, ch in enumerate(text):
        if ch == "`":
            code = not code
        elif not code and ch == "(":
            depth += 1
        elif not code and ch == ")" and depth:
            depth -= 1
        elif not code and not depth:
            out.append((i, ch))
    return out


def brief_reason(explanation: str, limit: int = _BRIEF_CHARS) -> str:
    """What a strategy does, in a few words for the hover: the clause after the last ": "
    (an explanation says what it found, then what to do), without asides in parentheses, up
    to the first "; " or ". ", shortened at a word outside code (with "…") past ``limit``
    characters."""
    text = " ".join(explanation.split())
    spots = _top_level(text)
    colons = [i for i, ch in spots if ch == ":" and text[i + 1:i + 2] == " "]
    if colons and text[colons[-1] + 2:].strip(" ."):
        text = text[colons[-1] + 2:]
    # parenthesised asides out, then the first clause
    kept: list[str] = []
    code = False
    depth = 0
    for ch in text:
        if ch == "`":
            code = not code
        if not code and ch == "(":
            depth += 1
        if not depth:
            kept.append(ch)
        if not code and ch == ")" and depth:
            depth -= 1
    text = " ".join("".join(kept).split()).replace(" ,", ",").replace(" .", ".")
    for i, ch in _top_level(text):
        if ch in ";." and text[i + 1:i + 2] in (" ", ""):
            text = text[:i]
            break
    text = text.strip(" .,;—-")
    if len(text) <= limit:
        return text
    cuts = [i for i, ch in _top_level(text) if ch == " " and i <= limit]
    words = text[:cuts[-1]].split(" ") if cuts else [text[:limit]]
    while len(words) > 1 and words[-1].lower() in _DANGLING:
        words.pop()
    return " ".join(words).rstrip(" ,;:—-") + "…"


def plan_brief(plan: Plan, function: str) -> str:
    """The plan for the hover: one line per strategy, its category, a short reason
    (``brief_reason``) and its evidence lines; the explanations in full are in the report."""
    head = _plan_head(plan, function)
    if not plan.strategies:
        return head + "\n\nNo optimization opportunity found."
    out = [head, ""]
    for i, s in enumerate(plan.strategies, 1):
        where = _lines(s.lines)
        # a callee's strategy says which function it is about (its call line is in ``lines``)
        where_in = f"in `{s.callee}`, " if s.callee else ""
        reason = brief_reason(s.explanation, _BRIEF_CHARS - len(where_in))
        said = f": {escape_md_keep_code(where_in + reason)}" if reason else ""
        suffix = f" _({where})_" if where else ""
        if s.advice:
            suffix += " — _advice_"
        out.append(f"{i}. **{s.category.name}**{said}{suffix}")
    return "\n".join(out)


def _ms(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    return f"{seconds * 1e3:.3g} ms" if seconds >= 1e-4 else f"{seconds * 1e6:.3g} µs"


_NO_GAIN = 0.03  # a 1-thread figure within ±3% of 1 (the runner's no-change band) is no gain


def one_thread_phrase(v: Verdict) -> str:
    """What a parallel rewrite gives on one thread, figure first: ``1.00× on 1 thread (no
    gain)``, ``1.20× on 1 thread``, ``0.80× on 1 thread (slower)``, or ``not measured on 1
    thread``."""
    s = v.serial_speedup
    if s is None:
        return "not measured on 1 thread"
    ci = v.serial_ci95
    if (ci is not None and ci[0] <= 1.0 <= ci[1]) or (ci is None and abs(s - 1.0) <= _NO_GAIN):
        return f"{ratio(s)} on 1 thread (no gain)"
    return f"{ratio(s)} on 1 thread" + (" (slower)" if s < 1.0 else "")


def speedup_phrase(v: Verdict, *, brief: bool = False) -> str:
    """``2.31× faster (95% CI 2.20–2.43, serial)``; a parallel result says what it needs and
    what it gives on one thread: ``1.99× faster on 2 threads with -fopenmp (95% CI 1.90–2.05);
    1.00× on 1 thread (no gain)``; else the verdict word with its reason. ``brief`` leaves
    out ", serial" (a lens line, where width counts)."""
    if v.verdict == "rejected":
        # The short reason: the first refused construct, or that no sandbox is available.
        return f"rejected — {v.validation_detail}" if v.validation_detail else "rejected"
    if v.verdict == "suspicious":
        return suspicious_phrase(v)
    if v.speedup is None or v.ci95 is None or v.verdict in ("incorrect", "build-failed",
                                                            "needs-spec", "timeout", "noisy",
                                                            "no-input"):
        return {
            "incorrect": "results differ from the original",
            "build-failed": "candidate did not build",
            "needs-spec": "cannot build inputs (needs a bench spec)",
            "timeout": "timed out",
            # The verdict's message says why (a busy machine, too few pairs, a disturbed run).
            "noisy": "not measured reliably",
            "no-input": "not timed: no stdin input",
        }.get(v.verdict, v.verdict)
    word = {"faster": "faster", "slower": "slower", "no-change": "no measurable change",
            "weakly-verified": "faster, weakly verified"}.get(v.verdict, v.verdict)
    if v.threads <= 1:
        # ``brief`` (a lens): the hover and the report say it ran on one thread.
        return f"{ratio(v.speedup)} {word} (95% CI {interval(v.ci95)}" + (
            ")" if brief else ", serial)")
    needs = "-fopenmp" if "-fopenmp" in v.flags else "OpenMP"
    serial = one_thread_phrase(v)
    phrase = (f"{ratio(v.speedup)} {word} on {v.threads} threads with {needs} "
              f"(95% CI {interval(v.ci95)}); {serial}")
    return phrase + added_flags_phrase(v)


def draft_spec_hint(name: str) -> str:
    """Where the editor offers a drafted bench spec (the quick fix on the function)."""
    return (f"Use the Quick Fix \u201cDraft a bench spec for {name}\u201d on the function to "
            "create one, complete its TODOs, then run again.")


def cannot_feed_title(name: str, v: Verdict, limit: int = 90) -> str:
    """``PerfPilot cannot build inputs for ends: parameter 'h' ...`` (the reason shortened to
    fit a code lens)."""
    reason = v.validation_detail or v.message
    if len(reason) > limit:
        reason = reason[:limit - 1].rstrip() + "…"
    return f"PerfPilot cannot build inputs for {name}: {reason}"


def needs_spec_verdict(outcome: Outcome) -> Verdict | None:
    """The needs-spec verdict when no candidate of the outcome could be measured for want of
    inputs (None otherwise)."""
    verdicts = [t.verdict for t in outcome.trials if t.verdict is not None]
    if outcome.chosen is None and verdicts and all(v.verdict == "needs-spec" for v in verdicts):
        return verdicts[0]
    return None


def suspicious_phrase(v: Verdict) -> str:
    """``suspicious, not applied: the clock says 2175× but instruction counts say 241×`` (a
    suspicious verdict has no speedup of its own: the figures come from its measurement)."""
    m = v.serial_measurement or v.measurement
    if m is None or v.instructions_ratio is None:
        return "suspicious, not applied: wall time and instruction counts disagree"
    return (f"suspicious, not applied: the clock says {ratio(m.speedup)} but instruction "
            f"counts say {ratio(v.instructions_ratio)}")


def added_flags_phrase(v: Verdict) -> str:
    """``; needs -fopenmp in your build, without it 1.00×`` when the measurement added flags
    the project's build lacks (the figure measured without them, when there is one)."""
    if not v.added_flags:
        return ""
    flags = " ".join(v.added_flags)
    if v.without_added_speedup is None or v.without_added_ci95 is None:
        return f"; needs {flags} in your build (without it: not measured)"
    return (f"; needs {flags} in your build, without it {ratio(v.without_added_speedup)} "
            f"(95% CI {interval(v.without_added_ci95)})")


def verification_phrase(v: Verdict) -> str:
    """How the candidate was checked, in one short phrase (empty when it was not)."""
    checked = v.verification
    if checked is None:
        return ""
    phrase = checked.phrase()
    if checked.weak:
        phrase += f"; untested: {checked.untested(1)}"
    return phrase


def _chosen_race(outcome: Outcome) -> tuple[Race, str] | None:
    """The race the chosen candidate won, and its variant label."""
    trial = outcome.chosen
    if trial is None or not trial.candidate.family:
        return None
    won = next((r for r in outcome.races if r.family == trial.candidate.family), None)
    return (won, trial.candidate.variant) if won is not None else None


def rewrite_name(candidate: Candidate, chosen: Candidate | None) -> str:
    """A rewrite named by what tells it from the one chosen: ``the OpenMP rewrite
    (openmp-reduction)``, ``the serial rewrite (without openmp-reduction)`` (by its rules' ids,
    or its strategies' categories for a model's; all of them when they are the same)."""
    if chosen is not None and chosen.needs_openmp and not candidate.needs_openmp:
        kind = "the serial rewrite"
    elif candidate.needs_openmp and (chosen is None or not chosen.needs_openmp):
        kind = "the OpenMP rewrite"
    else:
        kind = "the rewrite"

    def what(c: Candidate) -> list[str]:
        return list(dict.fromkeys(s.rule or s.category.name for s in c.strategies))

    mine = what(candidate)
    theirs = what(chosen) if chosen is not None else []
    more = [w for w in mine if w not in theirs]
    less = [w for w in theirs if w not in mine]
    said = ", ".join(more) if more else (
        "without " + ", ".join(less) if less and mine else ", ".join(mine))
    return f"{kind} ({said})" if said else kind


def race_phrases(races: tuple[Race, ...], trials: tuple[Trial, ...],
                 chosen: Trial | None) -> list[str]:
    """One phrase per race (``race_phrase``): the variants tried and the one picked, with its
    figure; a race of a rewrite that was not chosen names that rewrite (when a candidate was
    chosen, or several rewrites were raced)."""
    picked = chosen.candidate if chosen is not None else None
    out: list[str] = []
    for r in races:
        if picked is not None and picked.family == r.family:
            out.append(race_phrase(r, picked.variant))
            continue
        ours = next((t.candidate for t in trials if t.candidate.family == r.family), None)
        named = ours is not None and (picked is not None or len(races) > 1)
        out.append(race_phrase(r, None, rewrite_name(ours, picked)
                               if named and ours is not None else ""))
    return out


def races_markdown(outcome: Outcome) -> list[str]:
    """One line per race: the variants tried and the one picked, with its figure."""
    return [f"**Variants:** {escape_md(said[:1].upper() + said[1:])}"
            for said in race_phrases(outcome.races, outcome.trials, outcome.chosen)]


def race_report(race: Race) -> list[str]:
    """The report's table of one race: each variant's laps and why it left the race."""
    out = ["| variant | rounds (pairs asked: speedup) | pairs timed | result |",
           "|---|---|---|---|"]
    for e in race.entrants:
        laps = ", ".join(
            f"{'full' if lap.round == 0 else lap.round} ({lap.pairs}: "
            + (ratio(lap.verdict.speedup) if figure(lap.verdict) and lap.verdict.speedup
               else lap.verdict.verdict) + ")" for lap in e.laps)
        result = e.dropped or "measured in full"
        out.append(f"| {escape_md(e.label)} | {escape_md(laps)} | {e.pairs_taken} "
                   f"| {escape_md(result)} |")
    out += ["", f"{race.pairs_spent} pairs timed in the race; measuring all "
                f"{len(race.entrants)} variants in full would have taken about {race.full_cost}."]
    return out


def lens_title(outcome: Outcome, declined: str = "") -> str:
    """The code lens title for a finished job: the result alone (how it was checked and the
    variants raced are in the hover and the report). ``declined``: why the chosen rewrite is
    not in the code (the edit was discarded or refused), so the lens claims no figure for the
    unchanged function."""
    trial = outcome.chosen
    if trial is not None and declined:
        return f"PerfPilot: not applied — {declined}"
    if trial is not None and trial.verdict is not None:
        return f"⚡ {speedup_phrase(trial.verdict, brief=True)}"
    if outcome.status == "unmeasured":
        return "PerfPilot: rewritten, not measured"
    if outcome.status == "no-candidate":
        return "PerfPilot: no rewrite found"
    if outcome.status == "planned":
        return f"PerfPilot: plan with {len(outcome.plan.strategies)} strategies"
    unfed = needs_spec_verdict(outcome)
    if unfed is not None:
        return cannot_feed_title(outcome.site.name, unfed)
    verdicts = [t.verdict for t in outcome.trials if t.verdict is not None]
    if verdicts:
        return f"PerfPilot: not applied — {speedup_phrase(verdicts[0])}"
    return "PerfPilot: not applied"


def measurement_table(v: Verdict) -> str:
    """A markdown table of one measurement."""
    rows = [
        ("verdict", v.verdict),
        ("speedup (median of pair ratios)", ratio(v.speedup) if v.speedup else "–"),
        ("95% interval", interval(v.ci95) if v.ci95 else "–"),
        ("median original / candidate", f"{_ms(v.median_a_s)} / {_ms(v.median_b_s)}"),
        ("pairs kept / dropped", f"{v.pairs} / {v.dropped_pairs}"),
        ("instructions ratio (callgrind)",
         ratio(v.instructions_ratio) if v.instructions_ratio else "–"),
        ("threads", str(v.threads)),
        ("1-thread speedup", ratio(v.serial_speedup) if v.serial_speedup else "–"),
        ("validation", f"{v.validation_status}"
         + (f" ({verification_phrase(v)})" if v.verification is not None else "")),
        ("inputs", v.input_mode),
        ("compiler", v.compiler or "–"),
        ("flags", " ".join(v.flags) or "–"),
    ]
    out = ["| measure | value |", "|---|---|"]
    out += [f"| {k} | {escape_md(val)} |" for k, val in rows]
    return "\n".join(out)


def hover_markdown(outcome: Outcome) -> str:
    """Hover text, short enough to read without scrolling: the plan one line per strategy,
    then the chosen (or first) result, how it was checked and the variants raced, one line
    each. The explanations in full and every measurement are in the report (Details)."""
    parts = [plan_brief(outcome.plan, outcome.site.name)]
    trial = outcome.chosen or (outcome.trials[0] if outcome.trials else None)
    unfed = needs_spec_verdict(outcome)
    if unfed is not None:
        name = outcome.site.name
        parts += ["", f"**PerfPilot cannot build inputs for `{escape_md(name)}`:** "
                      f"{escape_md(unfed.validation_detail or unfed.message)}",
                  "", escape_md(draft_spec_hint(name))]
    elif trial is not None and trial.verdict is not None and trial.verdict.verdict == "rejected":
        parts += ["", f"**Result:** {escape_md(trial.verdict.message)}"]
    elif trial is not None and trial.verdict is not None:
        v = trial.verdict
        repaired = f" (the model's answer to repair round {trial.candidate.round})" \
            if trial.candidate.round else ""
        lines = [f"**Result:** {escape_md(speedup_phrase(v))}{repaired}"]
        checked = verification_phrase(v)
        timed = f"{v.pairs} pairs timed" if v.pairs else ""
        if checked or timed:
            lines.append("**Checked:** " + escape_md("; ".join(p for p in (checked, timed) if p)))
        # the race of the rewrite chosen first
        picked = trial.candidate.family if trial is outcome.chosen else None
        raced = races_markdown(outcome)
        first = sorted(range(len(raced)), key=lambda i: outcome.races[i].family != picked)
        lines += [raced[i] for i in first]
        # one paragraph, a line each (a hard break): no gap between them
        parts += ["", "  \n".join(lines)]
    elif outcome.message:
        parts += ["", escape_md(outcome.message)]
    return "\n".join(parts)


def report_markdown(outcome: Outcome) -> str:
    """The full Details report: plan, every candidate with its verdict, rejected ones."""
    site = outcome.site
    out = [f"# PerfPilot report: `{site.qualified_name}`", "",
           f"Lines {site.first_line}–{site.last_line}. Status: **{outcome.status}**. "
           f"{escape_md(outcome.message)}", "", "## Plan", "",
           plan_markdown(outcome.plan, site.name), ""]
    for note in outcome.plan.notes:
        out.append(f"- note: {escape_md(note)}")
    if outcome.plan.model and outcome.plan.raw_text.strip():
        # The model's own words, also when its plan could not be read (inert: a text block).
        out += ["", f"### The planner's answer ({escape_md(outcome.plan.model)})", "",
                "```text", outcome.plan.raw_text[-4000:].replace("```", "ʼʼʼ"), "```"]
    for race, line in zip(outcome.races, races_markdown(outcome), strict=True):
        out += ["", f"## Variants tried ({escape_md(race.family)})", "", line, "",
                *race_report(race)]
    for i, t in enumerate(outcome.trials):
        chosen = " (applied)" if outcome.best == i else ""
        variant = f" — {escape_md(t.candidate.variant)}" if t.candidate.variant else ""
        round_ = f", repair round {t.candidate.round}" if t.candidate.round else ""
        out += ["", f"## Candidate {i + 1}{chosen} — {escape_md(t.candidate.backend)}{round_}"
                f"{variant}", ""]
        cats = ", ".join(s.category.name for s in t.candidate.strategies) or "–"
        out.append(f"Strategies: {cats}")
        out += [f"- {escape_md(note)}" for note in t.candidate.notes]
        if t.verdict is not None and t.verdict.verdict == "rejected":
            # Never built: the reason, each refused construct on its own line, no table.
            out += ["", f"**Rejected, not applied.** {escape_md(t.verdict.message)}", ""]
            out += [f"- {escape_md(note)}" for note in t.verdict.notes]
        elif t.verdict is not None and t.verdict.verdict == "needs-spec":
            # Nothing about the candidate was learned: no table, what the function needs.
            out += ["", f"**{escape_md(t.verdict.message)}**", "",
                    escape_md(draft_spec_hint(site.name))]
        elif t.verdict is not None:
            out += ["", f"**{escape_md(speedup_phrase(t.verdict))}**", "",
                    measurement_table(t.verdict)]
            if t.verdict.verdict == "suspicious":
                out += ["", escape_md(t.verdict.message)]
            if t.verdict.validation_detail:
                out += ["", "Validation: " + escape_md(t.verdict.validation_detail)]
            if t.verdict.verdict == "build-failed" and t.verdict.build_log:
                out += ["", "```text", t.verdict.build_log[-3000:].replace("```", "ʼʼʼ"), "```"]
        code = "".join(f"#include {h}\n" for h in t.candidate.includes) + t.candidate.code
        out += ["", "```cpp", code.rstrip().replace("```", "ʼʼʼ"), "```"]
    if outcome.rejected:
        out += ["", "## Answers not used", ""]
    for r in outcome.rejected:
        round_ = f", repair round {r.round}" if r.round else ""
        out.append(f"- rejected ({escape_md(r.backend)}{round_}): {escape_md(r.reason)}")
        if r.answer.strip():
            # The model's own words, inert: a text block, fences defused.
            out += ["", "  ```text", *("  " + line for line in
                                       r.answer[-4000:].replace("```", "ʼʼʼ").splitlines()),
                    "  ```", ""]
    return "\n".join(out) + "\n"


def reverted_report(outcome: Outcome) -> str:
    """The report of a reverted rewrite: that it was reverted and its last measurement first,
    then the report as it was."""
    chosen = outcome.chosen
    last = speedup_phrase(chosen.verdict) if chosen is not None and chosen.verdict else ""
    head = f"**Reverted**; last measured: {escape_md(last)}." if last else "**Reverted.**"
    full = report_markdown(outcome)
    title, _, rest = full.partition("\n\n")
    return f"{title}\n\n{head}\n\n{rest}"


def rerun_kept_message(v: Verdict) -> str:
    """A Re-run of an applied rewrite that did not measure it faster: the rewrite stays in the
    file (never "nothing applied"), with the re-run's figure or its reason. The editor puts
    the function's name before it."""
    phrase = speedup_phrase(v)
    why = v.message.strip() if v.verdict not in ("faster", "slower", "no-change") else ""
    said = f"re-run {phrase}; the applied rewrite stays (Revert undoes it)"
    return f"{said}. {why.rstrip('.')}." if why and why.rstrip(".") != phrase else f"{said}."
