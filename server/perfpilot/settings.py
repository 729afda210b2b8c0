"""Settings: one frozen value, built from defaults, config files, editor settings and CLI flags.

The same keys appear everywhere: in LSP ``initializationOptions`` / ``workspace/configuration``
under the ``perfpilot`` section (nested objects, camelCase as VS Code writes them), in a
``[tool.perfpilot]`` table of ``pyproject.toml`` or a ``.perfpilot.toml`` (snake_case or
camelCase), and as CLI flags.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Backend = Literal["builtin", "local", "remote", "replay"]
# The name an API key the editor hands over is held under, in the engine's secrets (with a
# role prefix, ``optimizer.api_key``, when it is for one role only); never in settings.
API_KEY_SECRET = "api_key"
ApplyMode = Literal["verified", "preview", "ask"]
# ``answers = "reference"`` (evaluation only): each task's reference unit is the replayed answer.
REFERENCE_ANSWERS = "reference"
ParallelPolicy = Literal["prefer-serial", "balanced", "max-threads"]


@dataclass(frozen=True)
class RoleSettings:
    """How one role (planner or optimizer) is served."""

    backend: Backend = "builtin"
    model: str = ""
    endpoint: str = ""
    api_key_env: str = ""
    samples: int = 1
    # Requests of one role in flight at once (samples of a remote model): a server that
    # answers one at a time lets the others wait past their timeout.
    concurrency: int = 2
    temperature: float = 0.2
    max_tokens: int = 1024
    # The planner's budget when it writes a plan alone (plan-only mode): a plan is a few lines.
    plan_max_tokens: int = 384
    timeout_s: float = 120.0
    device: str = "cpu"
    dtype: str = "auto"
    threads: int = 1
    # The ``replay`` backend's folder of answers written beforehand (``<function>.md``; see
    # ``optimizing/replay.py``): measures the model path without a model.
    answers: str = ""
    # Times a model candidate that failed to build, was incorrect or was not faster is sent
    # back with the verdict for a corrected version (0: never).
    repair_rounds: int = 1


@dataclass(frozen=True)
class RunnerSettings:
    """How candidates are built, validated and timed."""

    enabled: bool = True
    compiler: str = ""  # empty: g++ for C++, gcc for C
    flags: tuple[str, ...] = ()
    threads: int = 0  # 0: all cores
    openmp: bool = False  # force -fopenmp even when neither side uses OpenMP
    build_timeout_s: float = 60.0
    run_timeout_s: float = 60.0
    # Seconds one job may spend measuring its candidates, every stage included (building,
    # studying the original, comparing, timing, counting); past it the job stops with a
    # ``timeout`` verdict naming the stage that ran out. 0: no limit.
    job_budget_s: float = 120.0
    pairs: int = 30
    callgrind: bool = True
    sandbox: bool = True
    # Run model-written candidates even where bubblewrap is missing (then only the network is
    # isolated and resources limited): off, so that such code never runs unconfined unasked.
    allow_unsandboxed: bool = False


@dataclass(frozen=True)
class ProfileSettings:
    """How the user's own program is built and run for profiling (shell command lines)."""

    build_command: str = ""
    run_command: str = ""
    test_command: str = ""  # run on the rewrite by "Confirm in program"
    cwd: str = ""  # relative to the workspace root; empty: the root
    profiler: str = "auto"  # auto (perf when it works, else callgrind), perf, callgrind
    frequency: int = 997  # perf samples per second
    timeout_s: float = 600.0
    lenses: int = 5  # code lenses on at most this many hottest functions
    min_share: float = 0.01  # and only on those with at least this self share
    confirm_pairs: int = 10  # paired whole-program runs of "Confirm in program"


@dataclass(frozen=True)
class RankerSettings:
    """A trained reward model that ranks candidates before the runner measures them."""

    model: str = ""  # a directory ``perfpilot train reward --on candidates`` wrote; empty: off
    # Measure only this many best-scored candidates (the variants of one rewrite count once).
    measure_top: int = 2


@dataclass(frozen=True)
class RecordSettings:
    """Training records: every measurement appended to a local JSONL store."""

    enabled: bool = True
    # Empty: ``<workspace>/.perfpilot/records/`` (no records without a workspace).
    folder: str = ""


@dataclass(frozen=True)
class Settings:
    """All PerfPilot settings."""

    planner: RoleSettings = field(default_factory=RoleSettings)
    optimizer: RoleSettings = field(default_factory=RoleSettings)
    runner: RunnerSettings = field(default_factory=RunnerSettings)
    profile: ProfileSettings = field(default_factory=ProfileSettings)
    ranker: RankerSettings = field(default_factory=RankerSettings)
    records: RecordSettings = field(default_factory=RecordSettings)
    apply_mode: ApplyMode = "verified"
    # How a parallel candidate is weighed against one that is faster on one thread (see
    # engine.choose and docs/protocol.md).
    parallel_policy: ParallelPolicy = "balanced"
    inlay_hints: bool = True
    max_file_bytes: int = 4_000_000


def setting_key(name: str) -> str:
    """The snake_case field name a settings key means, however it is spelled.

    camelCase, PascalCase, kebab-case, upper case and mixtures all name the same field:
    ``allowUnsandboxed``, ``allow-unsandboxed``, ``Allow_Unsandboxed`` and
    ``ALLOW_UNSANDBOXED`` are ``allow_unsandboxed``. Both the merge and the workspace filter
    (``engine.workspace_config``) read keys through this one function, so a spelling the merge
    accepts is a spelling the filter sees.
    """
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    words = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", words)
    return re.sub(r"_+", "_", words.replace("-", "_")).lower()


def _merge(obj: Any, data: Mapping[str, Any], path: str) -> Any:
    changes: dict[str, Any] = {}
    fields = {f.name: f for f in dataclasses.fields(obj)}
    for raw_key, value in data.items():
        key = setting_key(str(raw_key))
        if key not in fields or value is None:
            continue
        current = getattr(obj, key)
        where = f"{path}.{key}" if path else key
        if dataclasses.is_dataclass(current):
            if not isinstance(value, Mapping):
                raise ValueError(f"setting {where} must be a table/object")
            changes[key] = _merge(current, value, where)
        elif isinstance(current, bool):
            if not isinstance(value, bool):
                raise ValueError(f"setting {where} must be true or false")
            changes[key] = value
        elif isinstance(current, int):
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"setting {where} must be a number")
            changes[key] = int(value)
        elif isinstance(current, float):
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"setting {where} must be a number")
            changes[key] = float(value)
        elif isinstance(current, tuple):
            if isinstance(value, str):
                value = value.split()
            if not isinstance(value, list | tuple):
                raise ValueError(f"setting {where} must be a list")
            changes[key] = tuple(str(v) for v in value)
        else:
            changes[key] = str(value)
    new = dataclasses.replace(obj, **changes)
    _validate(new, path)
    return new


_CHOICES = {
    "backend": ("builtin", "local", "remote", "replay"),
    "apply_mode": ("verified", "preview", "ask"),
    "parallel_policy": ("prefer-serial", "balanced", "max-threads"),
    "profiler": ("auto", "perf", "callgrind"),
}


def setting_choices(name: str) -> tuple[str, ...]:
    """The allowed values of a setting that is a choice (``backend``, ``applyMode``), or ()."""
    return _CHOICES.get(setting_key(name), ())


def _validate(obj: Any, path: str) -> None:
    for name, choices in _CHOICES.items():
        if hasattr(obj, name) and getattr(obj, name) not in choices:
            where = f"{path}.{name}" if path else name
            raise ValueError(f"setting {where} must be one of {', '.join(choices)}")
    if isinstance(obj, RoleSettings) and obj.concurrency < 1:
        raise ValueError(f"setting {path}.concurrency must be at least 1")
    if isinstance(obj, RoleSettings) and obj.samples < 1:
        raise ValueError(f"setting {path}.samples must be at least 1")
    if isinstance(obj, RoleSettings) and obj.repair_rounds < 0:
        raise ValueError(f"setting {path}.repair_rounds must be 0 or more")
    if isinstance(obj, RoleSettings) and min(obj.max_tokens, obj.plan_max_tokens) < 1:
        raise ValueError(f"setting {path}.max_tokens and plan_max_tokens must be at least 1")


def merge_settings(base: Settings, data: Mapping[str, Any]) -> Settings:
    """Overlay a nested mapping (camelCase or snake_case keys) on ``base``.

    Unknown keys are ignored; a value of the wrong type raises ValueError with the key's path.
    """
    result: Settings = _merge(base, data, "")
    return result


def settings_to_dict(settings: Settings) -> dict[str, Any]:
    """The settings as a plain nested dict (snake_case), for JSON output and cache keys."""
    return dataclasses.asdict(settings)
