"""The lines a candidate changed, formatted in its file's style (never its logic).

A rewrite (builtin or a model's) reaches the user's file as reviewed code would: the lines it
adds or changes go through clang-format, with the project's ``.clang-format`` when one is
found above the file, else with a style read off the file itself (indent width, tabs or
spaces, where braces go, whether short ``if``s and loops stay on one line, how long lines get),
and only those lines (``--lines``). The function is formatted on its own, out of its nesting,
and put back at its own indentation, so a method inside a class or namespace keeps it.

The result must be the same tokens as the text given: whitespace aside, nothing may differ
(string literals are never split, comments never reflowed, includes never sorted), and the
preprocessor lines keep the text the rewrite gave them (clang-format moves ``#pragma omp`` to
the first column and respaces its clauses). Otherwise, or when clang-format is missing, fails
or takes too long, the text stays as the rewrite wrote it, already in the file's indentation.
"""

from __future__ import annotations

import difflib
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from urllib.parse import unquote, urlparse

from perfpilot.code.site import FunctionSite

_STYLE_FILES = (".clang-format", "_clang-format")
_TIMEOUT_S = 10
_PREPROCESSOR = re.compile(r"^[ \t]*#")


def clang_format() -> str | None:
    """The clang-format program on PATH, if any."""
    return shutil.which("clang-format")


def project_style(source: Path | None) -> Path | None:
    """The ``.clang-format`` (or ``_clang-format``) in the file's folder or the nearest above
    it, as clang-format itself looks for one."""
    if source is None:
        return None
    for folder in source.parents:
        for name in _STYLE_FILES:
            candidate = folder / name
            if candidate.is_file():
                return candidate
    return None


def _source_path(uri: str) -> Path | None:
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return Path(unquote(parsed.path))


def _indents(lines: list[str]) -> Counter[str]:
    """How often each step of indentation opens a deeper line (``"    "``, ``"\\t"``)."""
    steps: Counter[str] = Counter()
    previous: str | None = None
    for raw in lines:
        if not raw.strip() or raw.lstrip().startswith(("#", "//", "/*", "*")):
            continue
        lead = raw[:len(raw) - len(raw.lstrip())]
        if previous is not None and len(lead) > len(previous) and lead.startswith(previous):
            steps[lead[len(previous):]] += 1
        previous = lead
    return steps


def inferred_style(unit_text: str, function_text: str, base_indent: int) -> str:
    """A clang-format style (the ``-style`` argument) that writes code as ``unit_text`` is
    written: its indentation step, tabs or spaces, braces, one-line ``if``s, loops and
    functions, the longest line it allows. ``base_indent``: the columns the function sits at
    (lines are formatted without them)."""
    lines = unit_text.splitlines()
    steps = _indents(lines)
    tabs = steps.get("\t", 0) > sum(n for s, n in steps.items() if s != "\t")
    spaces = [s for s, _n in steps.most_common() if s.strip(" ") == "" and 2 <= len(s) <= 8]
    width = 4 if tabs else (len(spaces[0]) if spaces else 4)
    function_own_line = bool(re.search(r"\)[^{;]*\n[ \t]*\{", function_text[
        :function_text.find("{") + 1]))
    own = len(re.findall(r"^([ \t]*)(?:if|for|while|else|switch|do)\b[^\n{;]*\n\1[ \t]*\{",
                         unit_text, re.M))
    attached = len(re.findall(r"^[ \t]*(?:}\s*)?(?:if|for|while|else|switch|do)\b[^\n;]*\{"
                              r"[ \t]*$", unit_text, re.M))
    gnu = len(re.findall(r"^([ \t]*)(?:if|for|while|else)\b[^\n{;]*\n\1[ \t]+\{", unit_text,
                         re.M))
    short_if = re.search(r"^[ \t]*(?:else )?if ?\(.*\)[ \t]*[^{;\s/][^;{]*;[ \t]*$", unit_text,
                         re.M) is not None
    short_loop = re.search(r"^[ \t]*(?:for|while) ?\(.*\)[ \t]*[^{;\s/][^;{]*;[ \t]*$",
                           unit_text, re.M) is not None
    tight = len(re.findall(r"\b(?:if|for|while|switch)\(", unit_text)) > \
        len(re.findall(r"\b(?:if|for|while|switch) \(", unit_text))
    longest = max((len(line.expandtabs(width)) for line in lines), default=80)
    limit = max(80, min(120, longest)) - base_indent
    case_indent = re.search(r"^([ \t]*)switch\b[^\n]*\n(?:[^\n]*\n)?\1[ \t]+case\b", unit_text,
                            re.M) is not None
    options = {
        "BasedOnStyle": "LLVM",
        "Language": "Cpp",
        "Standard": "Latest",
        "IndentWidth": str(width),
        "TabWidth": str(width),
        "ContinuationIndentWidth": str(2 * width if width < 4 else width),
        "UseTab": "ForIndentation" if tabs else "Never",
        "ColumnLimit": str(max(40, limit)),
        "AllowShortIfStatementsOnASingleLine": "WithoutElse" if short_if else "Never",
        "AllowShortLoopsOnASingleLine": "true" if short_loop else "false",
        "AllowShortBlocksOnASingleLine": "Never",
        # a function written on one line stays so while its body is one short statement
        "AllowShortFunctionsOnASingleLine": "All" if "\n" not in function_text.strip()
        else "None",
        "SpaceBeforeParens": "Never" if tight else "ControlStatements",
        "DerivePointerAlignment": "true",
        "PointerAlignment": "Right",
        "IndentCaseLabels": "true" if case_indent else "false",
        "SortIncludes": "false",
        "ReflowComments": "false",
        "BreakStringLiterals": "false",
        "MaxEmptyLinesToKeep": "2",
        "KeepEmptyLinesAtTheStartOfBlocks": "true",
        "IndentPPDirectives": "None",
    }
    if gnu and gnu >= attached:
        options["BreakBeforeBraces"] = "GNU"
    elif own > attached:
        options["BreakBeforeBraces"] = "Allman"
    else:
        options["BreakBeforeBraces"] = "Custom"
        options["BraceWrapping"] = ("{AfterFunction: " +
                                    ("true" if function_own_line else "false") +
                                    ", AfterClass: false, AfterStruct: false, "
                                    "AfterControlStatement: Never, BeforeElse: false, "
                                    "BeforeCatch: false, SplitEmptyFunction: true}")
    return "{" + ", ".join(f"{k}: {v}" for k, v in options.items()) + "}"


def changed_lines(before: str, after: str) -> list[tuple[int, int]]:
    """The 1-based line ranges of ``after`` that are not lines of ``before`` (added or
    replaced)."""
    matcher = difflib.SequenceMatcher(None, before.split("\n"), after.split("\n"),
                                      autojunk=False)
    return [(j1 + 1, j2) for tag, _i1, _i2, j1, j2 in matcher.get_opcodes()
            if tag in ("replace", "insert") and j2 > j1]


def _compact(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _base_indent(site: FunctionSite) -> str:
    data = site.unit_text.encode("utf-8")
    start = data.rfind(b"\n", 0, site.start_byte) + 1
    lead = data[start:site.start_byte].decode("utf-8", "replace")
    return lead if lead.strip() == "" else ""


def format_candidate(site: FunctionSite, code: str) -> str:
    """``code`` (a candidate for ``site``: the function, with any helpers before it) with the
    lines it changed formatted in the file's style; ``code`` itself when nothing changed,
    when clang-format is missing or fails, or when formatting would change more than
    whitespace (see the module docstring)."""
    exe = clang_format()
    if exe is None or code == site.text:
        return code
    ranges = changed_lines(site.text, code)
    if not ranges:
        return code
    indent = _base_indent(site)
    lines = code.split("\n")
    flat = [lines[0]]
    for line in lines[1:]:
        if line.strip() and not line.startswith(indent):
            return code  # a line outside the function's own indentation: leave it
        flat.append(line[len(indent):] if line.strip() else line)
    source = _source_path(site.uri)
    style_file = project_style(source)
    suffix = ".c" if site.language == "c" else ".cpp"
    if style_file is not None:
        args = ["-style=file", f"--assume-filename={style_file.parent / ('candidate' + suffix)}"]
    else:
        args = [f"-style={inferred_style(site.unit_text, site.text, len(indent))}",
                f"--assume-filename=candidate{suffix}"]
    args += [f"--lines={a}:{b}" for a, b in ranges]
    text = "\n".join(flat)
    try:
        done = subprocess.run([exe, *args], input=text, capture_output=True, text=True,
                              timeout=_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError):
        return code
    if done.returncode != 0:
        return code
    out = _restore_preprocessor(text, done.stdout)
    if out is None or _compact(out) != _compact(text):
        return code
    back = _keep_untouched(text, out, ranges).split("\n")
    return "\n".join([back[0]] + [indent + line if line.strip() else line
                                  for line in back[1:]])


def _keep_untouched(before: str, after: str, ranges: list[tuple[int, int]]) -> str:
    """``after`` with each line outside the changed ``ranges`` (1-based lines of ``before``)
    that clang-format altered only in whitespace put back as ``before`` had it: the trailing
    spaces of a blank line next to the change are the file's, not the rewrite's to remove."""
    changed = {n for a, b in ranges for n in range(a, b + 1)}
    old, new = before.split("\n"), after.split("\n")
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "replace" or i2 - i1 != j2 - j1:
            continue
        for i, j in zip(range(i1, i2), range(j1, j2), strict=True):
            if i + 1 not in changed and _compact(old[i]) == _compact(new[j]):
                new[j] = old[i]
    return "\n".join(new)


def _restore_preprocessor(before: str, after: str) -> str | None:
    """``after`` with each preprocessor line as ``before`` had it (clang-format puts
    ``#pragma`` in the first column and respaces its clauses); None when the two do not have
    the same preprocessor lines in the same order."""
    mine = [line for line in before.split("\n") if _PREPROCESSOR.match(line)]
    theirs = after.split("\n")
    at = [k for k, line in enumerate(theirs) if _PREPROCESSOR.match(line)]
    if len(at) != len(mine) or any(_compact(theirs[k]) != _compact(m)
                                   for k, m in zip(at, mine, strict=True)):
        return None
    for k, line in zip(at, mine, strict=True):
        # the rewrite's text, at the indentation of the code it binds to (the next line)
        following = next((t for t in theirs[k + 1:] if t.strip() and
                          not _PREPROCESSOR.match(t)), "")
        lead = following[:len(following) - len(following.lstrip())]
        theirs[k] = lead + line.strip()
    return "\n".join(theirs)
