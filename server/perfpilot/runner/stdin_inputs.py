"""The stdin test files of a whole program: the one rule that finds them.

For a source ``NAME.c``/``NAME.cpp`` the inputs are ``NAME.in`` and ``NAME.*.in`` beside it,
and any ``*.in`` in ``.perfpilot/NAME/``; a ``.out`` file with an input's stem holds its
expected output. The runner, the evaluation task loader and the cache's fingerprints all use
this module, so a file one of them accepts is never ignored by another.
"""

from __future__ import annotations

from pathlib import Path

from perfpilot.runner.spec import SPEC_FOLDER


def find_inputs(source_path: Path | None) -> list[tuple[Path, Path | None]]:
    """Stdin files for a program and their expected outputs (None when absent), sorted."""
    if source_path is None:
        return []
    src = source_path.resolve()
    stem = src.stem
    found = sorted({p for p in (*src.parent.glob(f"{stem}.in"),
                                *src.parent.glob(f"{stem}.*.in"),
                                *(src.parent / SPEC_FOLDER / stem).glob("*.in"))
                    if p.is_file()})
    out: list[tuple[Path, Path | None]] = []
    for path in found:
        expected = path.with_suffix(".out")
        out.append((path, expected if expected.is_file() else None))
    return out


def input_files(source_path: Path | None) -> tuple[Path, ...]:
    """Every input and expected-output file that decides a program's verdict."""
    files: list[Path] = []
    for path, expected in find_inputs(source_path):
        files.append(path)
        if expected is not None:
            files.append(expected)
    return tuple(files)


def unmatched_inputs(source_path: Path) -> list[Path]:
    """``.in`` files beside the source that look meant for it but the rule does not take
    (``prog0.in`` for ``prog.cpp``): named in messages so the user can rename them."""
    src = source_path.resolve()
    taken = {p for p, _ in find_inputs(src)}
    return sorted(p for p in src.parent.glob(f"{src.stem}*.in") if p not in taken)


def rule_text(source_path: Path) -> str:
    """The rule in words, for messages."""
    stem = source_path.stem
    return (f"{stem}.in or {stem}.*.in beside {source_path.name}, or *.in in "
            f"{SPEC_FOLDER}/{stem}/")


def no_input_reason(source_path: Path | None) -> str:
    """Why a program cannot be timed on its stdin files, or "" when one of them has content.

    Timing two programs that read nothing compares their start-up, not their work.
    """
    if source_path is None:
        return "the program's source file is unknown, so its stdin files cannot be found"
    inputs = find_inputs(source_path)
    if any(_size(p) > 0 for p, _ in inputs):
        return ""
    stray = unmatched_inputs(source_path)
    hint = ""
    if stray:
        names = ", ".join(p.name for p in stray[:3])
        hint = (f"; {names} {'does' if len(stray) == 1 else 'do'} not match (name them like "
                f"{source_path.stem}.0.in)")
    if inputs:
        names = ", ".join(p.name for p, _ in inputs[:3])
        return (f"every stdin file of {source_path.name} is empty ({names}); put a typical "
                f"input in it (any line, if the program reads none){hint}")
    return f"{source_path.name} has no stdin file: add {rule_text(source_path)}{hint}"


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
