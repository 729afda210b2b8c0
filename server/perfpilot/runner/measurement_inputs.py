"""MeasurementInputs: everything that decides how a function is measured, resolved once.

The compile flags (the compile database's entry, else defaults, then the settings'), the bench
spec, a whole program's stdin files, the mode and thread count, the sandbox switches and the
limits are looked up here and nowhere else. The engine resolves them once per job, keys its
verdict cache by ``key_material()`` and hands the value to the runner, whose stages read it
instead of looking anything up again.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal

from perfpilot.code.site import FunctionSite, Language
from perfpilot.runner.compdb import CompileFlags, find_compdb, flags_for
from perfpilot.runner.spec import Spec, find_spec, load_spec
from perfpilot.runner.stdin_inputs import (
    find_inputs,
    input_files,
    no_input_reason,
    unmatched_inputs,
)
from perfpilot.runner.toolchain import thread_count, unit_flags
from perfpilot.runner.values import Tuning
from perfpilot.settings import RunnerSettings

Mode = Literal["function", "program"]


@dataclass(frozen=True)
class MeasurementInputs:
    """What one job's measurements depend on besides the two units' texts."""

    # Compiler, extra flags, timeouts, job budget, pairs, sandbox and unsandboxed switches.
    settings: RunnerSettings
    tuning: Tuning  # the procedure's knobs and its memory limit
    language: Language
    mode: Mode  # a function through a bench, or a whole program (``main``) on its stdin files
    threads: int  # the threads of a parallel (OpenMP) run
    flags: tuple[str, ...]  # the unit's compile flags
    flags_source: str  # the compile database's path, "defaults" or "settings"
    compdb: CompileFlags | None  # the compile database's entry for the source (directory)
    source_path: Path | None
    spec: Spec | None  # the bench spec, loaded
    stdin: tuple[tuple[Path, Path | None], ...]  # a program's stdin files, expected outputs
    no_input: str  # why a program's stdin files cannot time it ("" when they can)
    # (path, sha256) of each file besides the source whose content decides the verdict.
    files: tuple[tuple[str, str], ...]

    def key_material(self) -> dict[str, Any]:
        """Plain, order-independent data for the verdict cache's key: equal for equal inputs,
        different when any field differs (the spec and files by content)."""
        spec = None
        if self.spec is not None:
            text = f"{self.spec.bench_text}\0{self.spec.entry_text}"
            spec = [str(self.spec.path), hashlib.sha256(text.encode()).hexdigest()]
        return {
            "settings": asdict(self.settings), "tuning": asdict(self.tuning),
            "language": self.language, "mode": self.mode, "threads": self.threads,
            "flags": list(self.flags), "flags_source": self.flags_source,
            "compdb": asdict(self.compdb) if self.compdb is not None else None,
            "source": str(self.source_path or ""), "spec": spec,
            "stdin": [[str(p), str(e or "")] for p, e in self.stdin],
            "no_input": self.no_input, "files": [list(f) for f in self.files],
        }

    @property
    def compdb_flags(self) -> tuple[str, ...]:
        """The compile database's flags for the source alone (what the optimizer's compile
        check builds candidates with); none without an entry."""
        return self.compdb.flags if self.compdb is not None else ()

    @property
    def paths(self) -> tuple[Path, ...]:
        """The files besides the source that decide the verdict (an edit makes it stale)."""
        return tuple(Path(p) for p, _ in self.files)

    def with_pairs(self, pairs: int) -> MeasurementInputs:
        """These inputs at ``pairs`` pairs and without instruction counts (a race's round)."""
        return replace(self, settings=replace(self.settings, pairs=pairs, callgrind=False))


def resolve_inputs(settings: RunnerSettings, site: FunctionSite, source_path: Path | None = None,
                   workspace: Path | None = None, spec: Path | None = None,
                   tuning: Tuning | None = None) -> MeasurementInputs:
    """The inputs of measuring ``site``, a function of ``source_path`` in ``workspace``:
    ``spec`` when given, else the spec found for it; the compile database's flags; a whole
    program's stdin files."""
    spec_path = spec or find_spec(site.qualified_name, source_path, workspace)
    compdb = flags_for(source_path, workspace) if source_path is not None else None
    flags, flags_source = unit_flags(settings, site.language, source_path, compdb)
    program = site.name == "main"
    found: list[Path] = [] if spec_path is None else [spec_path]
    if source_path is not None:
        db = find_compdb(source_path, workspace)
        found += [db] if db is not None else []
        if program:
            # Near-miss names count too: renaming one into the rule must change the key.
            found += [*input_files(source_path), *unmatched_inputs(source_path)]
    files = tuple(dict.fromkeys(p.resolve() for p in found if p.is_file()))
    return MeasurementInputs(
        settings=settings, tuning=tuning or Tuning(), language=site.language,
        mode="program" if program else "function", threads=thread_count(settings),
        flags=flags, flags_source=flags_source, compdb=compdb, source_path=source_path,
        spec=load_spec(spec_path) if spec_path is not None else None,
        stdin=tuple(find_inputs(source_path)) if program else (),
        no_input=no_input_reason(source_path) if program else "",
        files=tuple((str(p), _sha256(p)) for p in files))


def _sha256(path: Path) -> str:
    """The file's content hash (empty when it cannot be read)."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""
