"""Evaluation tasks: one directory each, described by a ``task.toml``.

A task names a source file, the function to optimize, how the runner feeds it (the generated
harness, a bench spec, or stdin files for ``main``), the categories a good plan contains, whether
the fast version is an OpenMP one, a reference unit holding a known fast version, and optionally a
folder of recorded model answers for a replaying optimizer.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfpilot.code.locate import LocateError, function_by_name
from perfpilot.code.parse import language_for
from perfpilot.code.site import FunctionSite, Language
from perfpilot.runner.stdin_inputs import input_files, no_input_reason
from perfpilot.strategy.categories import CATEGORIES, match_category

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

TASK_FILE = "task.toml"
INPUT_MODES = ("harness", "spec", "stdin")
_KEYS = {"source", "function", "input", "spec", "labels", "openmp", "reference", "description",
         "answers"}


class TaskError(Exception):
    """A task directory that cannot be used; the message names the file and the problem."""


@dataclass(frozen=True)
class Task:
    """One validated evaluation task."""

    name: str
    directory: Path
    source: Path
    function: str
    language: Language
    input_mode: str
    spec: Path | None
    labels: tuple[str, ...]
    openmp: bool
    reference: Path | None
    description: str = ""
    # A folder of recorded model answers (``<function>.md``, ``<function>.repair1.md``, ...)
    # that a replaying optimizer reads instead of asking a model.
    answers: Path | None = None

    def site(self) -> FunctionSite:
        """The function to optimize, located in the source file."""
        text = self.source.read_text(encoding="utf-8")
        return function_by_name(text, self.language, self.function,
                                uri=self.source.resolve().as_uri())

    def inputs(self) -> tuple[Path, ...]:
        """Every file that decides this task's result (for resume fingerprints)."""
        files = [self.directory / TASK_FILE, self.source]
        if self.spec is not None:
            files.append(self.spec)
        if self.reference is not None:
            files.append(self.reference)
        if self.input_mode == "stdin":
            files.extend(input_files(self.source))
        if self.answers is not None:
            files.extend(sorted(p for p in self.answers.glob("*.md") if p.is_file()))
        return tuple(files)

    def fingerprint(self) -> str:
        """A hash of the task's files: a stored result is reused only while this is unchanged."""
        h = hashlib.sha256()
        for path in self.inputs():
            h.update(path.name.encode())
            h.update(b"\0")
            h.update(path.read_bytes())
            h.update(b"\0")
        return h.hexdigest()[:16]


def _str(data: Mapping[str, Any], key: str, where: Path, default: str | None = None) -> str:
    value = data.get(key, default)
    if value is None:
        raise TaskError(f"{where}: missing key '{key}'")
    if not isinstance(value, str) or not value.strip():
        raise TaskError(f"{where}: '{key}' must be a non-empty string")
    return value.strip()


def _file(directory: Path, name: str, where: Path, key: str) -> Path:
    path = (directory / name).resolve()
    if directory.resolve() not in path.parents:
        raise TaskError(f"{where}: '{key}' must name a file inside the task directory")
    if not path.is_file():
        raise TaskError(f"{where}: '{key}' names {name}, which does not exist")
    return path


def _folder(directory: Path, name: str, where: Path, key: str) -> Path:
    path = (directory / name).resolve()
    if directory.resolve() not in path.parents:
        raise TaskError(f"{where}: '{key}' must name a folder inside the task directory")
    if not path.is_dir():
        raise TaskError(f"{where}: '{key}' names {name}, which is not a folder")
    return path


def _labels(raw: Any, where: Path) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw):
        raise TaskError(f"{where}: 'labels' must be a list of category names")
    out: list[str] = []
    for text in raw:
        cat = match_category(text)
        if cat is None or cat.name != text.strip():
            hint = f" (did you mean '{cat.name}'?)" if cat is not None else ""
            names = "; ".join(c.name for c in CATEGORIES)
            raise TaskError(f"{where}: unknown category '{text}'{hint}; the categories are: "
                            f"{names}")
        if cat.name not in out:
            out.append(cat.name)
    return tuple(out)


def load_task(directory: Path) -> Task:
    """Read and validate ``directory/task.toml``; raises TaskError with a clear message."""
    where = directory / TASK_FILE
    try:
        data = tomllib.loads(where.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise TaskError(f"{where}: no such file") from exc
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise TaskError(f"{where}: cannot read: {exc}") from exc
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise TaskError(f"{where}: unknown key(s) {', '.join(unknown)}; known keys: "
                        f"{', '.join(sorted(_KEYS))}")
    source = _file(directory, _str(data, "source", where), where, "source")
    language = language_for(str(source))
    if language is None:
        raise TaskError(f"{where}: source {source.name} is not a C or C++ file")
    function = _str(data, "function", where)
    mode = _str(data, "input", where, "harness")
    if mode not in INPUT_MODES:
        raise TaskError(f"{where}: 'input' must be one of {', '.join(INPUT_MODES)}, not "
                        f"'{mode}'")
    spec: Path | None = None
    if mode == "spec":
        spec = _file(directory, _str(data, "spec", where), where, "spec")
    elif "spec" in data:
        raise TaskError(f"{where}: 'spec' is only used with input = \"spec\"")
    if mode == "stdin" and function != "main":
        raise TaskError(f"{where}: input = \"stdin\" needs function = \"main\"")
    if mode == "stdin" and (reason := no_input_reason(source)):
        # The runner's own rule: a file it would not read must not pass here.
        raise TaskError(f"{where}: input = \"stdin\" needs input: {reason}")
    openmp = data.get("openmp", False)
    if not isinstance(openmp, bool):
        raise TaskError(f"{where}: 'openmp' must be true or false")
    reference = None
    if "reference" in data:
        reference = _file(directory, _str(data, "reference", where), where, "reference")
        if language_for(str(reference)) != language:
            raise TaskError(f"{where}: the reference must be in the same language as the source")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise TaskError(f"{where}: 'description' must be a string")
    answers = None
    if "answers" in data:
        answers = _folder(directory, _str(data, "answers", where), where, "answers")
    task = Task(name=directory.name, directory=directory.resolve(), source=source,
                function=function, language=language, input_mode=mode, spec=spec,
                labels=_labels(data.get("labels"), where), openmp=openmp, reference=reference,
                description=description.strip(), answers=answers)
    for path, what in ((source, "source"), (reference, "reference")):
        if path is None:
            continue
        try:
            text = path.read_text(encoding="utf-8")
            function_by_name(text, language, function)
        except UnicodeDecodeError as exc:
            raise TaskError(f"{where}: {what} {path.name} is not UTF-8") from exc
        except LocateError as exc:
            raise TaskError(f"{where}: {what} {path.name}: {exc}") from exc
    return task


def load_tasks(root: Path, only: tuple[str, ...] = ()) -> list[Task]:
    """Every task under ``root`` (sorted by name), or the one task when ``root`` is a task.

    ``only`` keeps the named tasks. All problems are collected into one TaskError.
    """
    if not root.is_dir():
        raise TaskError(f"{root}: not a directory")
    dirs = [root] if (root / TASK_FILE).is_file() else sorted(
        d for d in root.iterdir() if d.is_dir() and (d / TASK_FILE).is_file())
    if only:
        missing = sorted(set(only) - {d.name for d in dirs})
        if missing:
            raise TaskError(f"{root}: no task named {', '.join(missing)}")
        dirs = [d for d in dirs if d.name in only]
    if not dirs:
        raise TaskError(f"{root}: no task directories (each holds a {TASK_FILE})")
    tasks: list[Task] = []
    errors: list[str] = []
    for d in dirs:
        try:
            tasks.append(load_task(d))
        except TaskError as exc:
            errors.append(str(exc))
    if errors:
        raise TaskError("\n".join(errors))
    return tasks
