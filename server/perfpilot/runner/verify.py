"""Verification: inputs valid for the original and strong enough to judge a candidate.

Before a candidate is compared, the original is studied once (and the result cached):
0. Sizes: the original alone is timed once at sizes up to the largest validation size (see
   ``size_fit``); validation sizes at which one call would take too long (an exponential
   original at size 100) are dropped for the largest size that fits, and the note says so.
1. Validity: every input case (a value profile and a seed) is run on the original alone, built
   with AddressSanitizer and UndefinedBehaviorSanitizer. A case on which the original crashes,
   hangs or has undefined behaviour is invalid input, never a candidate's fault.
2. Strength: simple mutants of the original (see ``runner.mutants``) are compared with it on the
   valid cases; more seeds are tried against the survivors. A surviving strong mutant makes
   the verdict ``weakly-verified``.
3. Reach: branch and line coverage of the original under the valid cases (gcov). Lines no
   input ran and strong mutants that survived start a search for inputs that reach them
   (``input_search``); the cases that do join the study.
Then the candidate is compared with the original on the valid cases, both sanitized, each case
in a child process of the driver (a crash or a hang ends only that case, and a case that runs
past 20 times the original's time on it ends the candidate's run); parallel candidates also at
several threads, where races show as differences. Each case also runs the memory probe
(see the driver): its inputs are overwritten in place with its partner's and restored, so a
function that answers from memory of its last input returns a stale answer. Constants the
candidate brings that the original lacks get input cases of their own (the constants profile),
and after timing the outputs are compared once more past the timed size (``check_beyond``).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import math
import os
import re
import shutil
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from perfpilot.code.locate import LocateError, function_by_name
from perfpilot.progress import gate_for_tests
from perfpilot.runner import verdicts
from perfpilot.runner.build import BuildCache, Compiled, cache_folder, compile_shared
from perfpilot.runner.constants import (
    Constant,
    Number,
    format_number,
    function_constants,
    input_pool,
    pool_arg,
    unit_literals,
)
from perfpilot.runner.coverage import Reach, read_gcov
from perfpilot.runner.driver_run import LIB_A, LIB_B, DriverRun, run_driver
from perfpilot.runner.input_search import SearchOutcome, search_inputs, search_profiles
from perfpilot.runner.job import Job
from perfpilot.runner.mutants import CONSTANT_KINDS, LEVELS, Mutant, schemata
from perfpilot.runner.sandbox import Limits, make_writable_for_runs, run_sandboxed, signal_name
from perfpilot.runner.size_fit import EdgeFit, fit_sizes, scan_ladder
from perfpilot.runner.stats import CpuSnapshot
from perfpilot.runner.values import Verification
from perfpilot.runner.verdicts import Failure

PROFILE_NAMES = ("natural", "signed", "small", "sorted", "wide", "extreme", "special",
                 "aliased", "constants")
CONSTANTS_PROFILE = 8
SAN_FLAGS = ("-fsanitize=address,undefined", "-fno-sanitize-recover=all",
             "-fno-omit-frame-pointer")
SAN_EXIT = 86
LIB_A_SAN = "a/liba_san.so"
LIB_B_SAN = "b/libb_san.so"
DRIVER_SAN = "./driver_san"
_ANALYSIS_VERSION = "4"


@dataclass(frozen=True)
class Case:
    """One input case: a value profile and a seed, validated at every edge size but those in
    ``skip`` (where the original itself fails on these inputs)."""

    profile: int
    seed: int
    skip: tuple[int, ...] = ()

    @property
    def arg(self) -> str:
        """The driver's spelling, ``profile:seed`` with ``/size`` for each skipped size."""
        return f"{self.profile}:{self.seed}" + "".join(f"/{n}" for n in self.skip)

    @property
    def key(self) -> tuple[int, int]:
        """The case without its skipped sizes."""
        return (self.profile, self.seed)

    def describe(self) -> str:
        """``signed values, seed 12346``."""
        name = PROFILE_NAMES[self.profile] if 0 <= self.profile < len(PROFILE_NAMES) else "?"
        return f"{name} values, seed {self.seed}"


def partner(case: Case) -> Case:
    """The case whose inputs the memory probe and timing alternate with ``case``'s: the same
    profile (so the same size and shape), the next seed. The driver's ``partner_of``."""
    return Case(case.profile, case.seed + 1)


def base_cases(job: Job) -> list[Case]:
    """Every profile of the tuning with its first seeds (the constants profile only where
    the original has constants to draw from)."""
    t = job.tuning
    pool = original_pool(job)
    return [Case(p, t.seed + k) for p in t.profiles for k in range(t.seeds_per_profile)
            if p != CONSTANTS_PROFILE or pool]


@lru_cache(maxsize=64)
def _constants(unit_text: str, language: str, start: int, end: int) -> tuple[Constant, ...]:
    return function_constants(unit_text, "c" if language == "c" else "cpp", start, end)


def original_pool(job: Job) -> tuple[Number, ...]:
    """The numbers of the original function the constants profile draws from."""
    site = job.site
    found = _constants(site.unit_text, site.language, site.start_byte, site.end_byte)
    return input_pool([c.value for c in found])


def _cases_arg(cases: list[Case] | tuple[Case, ...]) -> str:
    return ",".join(c.arg for c in cases)


def san_env(memory_mb: int) -> dict[str, str]:
    """Sanitizer options: a distinct exit code, no leak or ODR checks (both sides define the
    same symbols; leaks are not behaviour the user asked about). Each child of the driver
    writes its stderr, reports included, to ``child.<pid>.err``."""
    common = f"exitcode={SAN_EXIT}:print_stacktrace=1"
    return {
        "ASAN_OPTIONS": f"{common}:detect_leaks=0:detect_odr_violation=0:"
                        f"allocator_may_return_null=1:hard_rss_limit_mb={memory_mb}",
        "UBSAN_OPTIONS": f"{common}:halt_on_error=1",
    }


@dataclass(frozen=True)
class OpenConstant:
    """A strong mutant of a constant that the inputs never told apart from the original:
    the survivor's text in the verification, and the constant's role and value (a
    candidate that keeps the same constant in the same role leaves it as it was)."""

    text: str
    role: str
    value: str


@dataclass(frozen=True)
class OriginalAnalysis:
    """What studying the original found; shared by every candidate of the same original."""

    valid: tuple[Case, ...]
    rejected: tuple[str, ...]  # why cases were invalid, one sentence each
    verification: Verification
    # The largest size at which the first valid case is valid for the original (sizes are
    # scanned upwards, sanitized, until a call takes long enough to time): timing stays there.
    timing_max_size: int = 0
    open_constants: tuple[OpenConstant, ...] = ()
    # The validation sizes that fit the original's time (empty: the tuning's), and the note
    # that says why some were dropped.
    edge_sizes: tuple[int, ...] = ()
    size_note: str = ""
    # The longest time (ms) one valid case took the original alone (sanitized, probe
    # included): a candidate's case is cut off at a multiple of it.
    case_ms: int = 0
    # Why timing stops at timing_max_size (invalid inputs past it, or a call too slow).
    timing_why: str = ""

    def to_json(self) -> dict[str, Any]:
        """A plain JSON-able dict (the cache's format)."""
        return {"valid": [[c.profile, c.seed, list(c.skip)] for c in self.valid],
                "rejected": list(self.rejected), "verification": self.verification.to_json(),
                "timing_max_size": self.timing_max_size,
                "open_constants": [[o.text, o.role, o.value] for o in self.open_constants],
                "edge_sizes": list(self.edge_sizes), "size_note": self.size_note,
                "case_ms": self.case_ms, "timing_why": self.timing_why}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> OriginalAnalysis:
        """The inverse of ``to_json``."""
        return cls(tuple(Case(int(p), int(s), tuple(int(n) for n in skip))
                         for p, s, skip in data["valid"]),
                   tuple(str(x) for x in data["rejected"]),
                   Verification.from_json(data["verification"]),
                   int(data.get("timing_max_size", 0)),
                   tuple(OpenConstant(str(t), str(r), str(v))
                         for t, r, v in data.get("open_constants", ())),
                   tuple(int(n) for n in data.get("edge_sizes", ())),
                   str(data.get("size_note", "")), int(data.get("case_ms", 0)),
                   str(data.get("timing_why", "")))


def _sizes(job: Job) -> str:
    return ",".join(str(s) for s in job.tuning.edge_sizes)


def sanitizer_report(workdir: Path, pid: object) -> str:
    """The first lines of a sanitizer report the driver's child ``pid`` left, if any."""
    path = workdir / f"child.{pid}.err"
    try:
        with path.open("rb") as f:
            text = f.read(65536).decode("utf-8", "replace")
    except OSError:
        return ""
    keep = [ln.strip() for ln in text.splitlines()
            if "runtime error:" in ln or "ERROR: AddressSanitizer" in ln or
            ln.startswith("SUMMARY:")]
    lines = list(dict.fromkeys(keep)) or text.strip().splitlines()[:1]
    report = "; ".join(lines)
    return re.sub(rf"{re.escape(str(workdir))}/?|/tmp/job/", "", report)[:400]


def _case_of(event: dict[str, Any]) -> Case:
    return Case(int(event.get("profile", 0)), int(event.get("seed", 0)))


def _why(event: dict[str, Any], workdir: Path) -> str:
    """What went wrong in one child, as a predicate: ``crashed (SIGSEGV) at size 7``."""
    status = str(event.get("status"))
    size = event.get("size")
    if status == "sanitizer":
        report = sanitizer_report(workdir, event.get("pid"))
        return f"had undefined behaviour or a memory error at size {size}" + \
            (f" ({report})" if report else "")
    if status == "timeout":
        return f"did not finish within the time limit at size {size}"
    if status == "crash":
        sig = int(event.get("signal") or 0)
        how = signal_name(sig) if sig else f"exit code {event.get('code')}"
        return f"crashed ({how}) at size {size}"
    if status in ("noinputs", "invalid"):
        return "could not run on any size"
    return status


class _Runs:
    """Driver runs of one job: the sanitized build when it exists, else the plain one."""

    def __init__(self, job: Job, sanitized: bool) -> None:
        self.job = job
        self.sanitized = sanitized

    async def check(self, cases: list[Case] | tuple[Case, ...], *, sides: str, threads: int = 1,
                    case_ms: int, libs: tuple[str, str] | None = None,
                    fork: bool = True, driver: str | None = None,
                    sizes: str | None = None, stop_ns: int = 0, exact: bool = False,
                    pool: tuple[Number, ...] | None = None,
                    probe: bool = False, times: bool = False) -> DriverRun:
        job = self.job
        env = dict(job.env(threads))
        if self.sanitized and driver is None:
            env.update(san_env(job.tuning.memory_mb))
        use_san = self.sanitized and driver is None
        args: dict[str, object] = {"sizes": sizes or _sizes(job), "cases": _cases_arg(cases),
                                   "sides": sides, "case_ms": case_ms,
                                   "seed": job.tuning.seed, "mem_mb": job.tuning.memory_mb}
        if not fork:
            args["fork"] = 0
        if stop_ns:
            args["stop_ns"] = stop_ns
        if probe:
            args["probe"] = 1
        if times:
            args["times"] = 1
        if exact:
            args["exact"] = 1
        consts = pool_arg(pool if pool is not None else original_pool(job))
        if consts:
            args["consts"] = consts
        if libs is None:
            libs = (LIB_A_SAN, LIB_B_SAN) if use_san else (LIB_A, LIB_B)
        limits = job.limits(threads)
        if use_san:
            # ASan reserves terabytes of address space: bound memory through its own option.
            limits = replace(limits, memory_mb=0)
        timeout = job.settings.run_timeout_s + len(cases) * case_ms / 1000
        return await run_driver(job.sandbox, job.workdir, "check", args, env=env,
                                timeout_s=timeout, limits=limits, ctx=job.ctx, libs=libs,
                                driver=driver or (DRIVER_SAN if use_san else "./driver"))


@dataclass(frozen=True)
class _Validity:
    """What a run of cases on the original alone found: the valid cases (with the sizes they
    are invalid at skipped), why the others were not, the values each recorded, and the time
    each took (ms)."""

    valid: tuple[Case, ...]
    rejected: tuple[str, ...]
    recorded: dict[tuple[int, int], int]
    case_ms: dict[tuple[int, int], int]


def _read_validity(run: DriverRun, workdir: Path) -> _Validity:
    valid: list[Case] = []
    rejected: list[str] = []
    skips: dict[tuple[int, int], list[int]] = {}
    recorded: dict[tuple[int, int], int] = {}
    took: dict[tuple[int, int], int] = {}
    for event in run.events:
        case = _case_of(event)
        if event.get("event") == "invalid":
            skips.setdefault(case.key, []).append(int(event.get("size", -1)))
            rejected.append(f"the original {_why(event, workdir)} on {case.describe()}")
        elif event.get("event") == "case" and event.get("status") == "ok":
            valid.append(replace(case, skip=tuple(skips.get(case.key, ()))))
            recorded[case.key] = int(event.get("recorded", 1))
            took[case.key] = int(event.get("ms", 0))
        elif event.get("event") == "case":
            rejected.append(f"the original {_why(event, workdir)} on {case.describe()}")
    return _Validity(tuple(valid), tuple(rejected), recorded, took)


async def analyse_original(job: Job, sanitized: bool) -> OriginalAnalysis | Failure:
    """Valid cases, mutation score and branch coverage of the original (cached)."""
    cache = cache_folder("verify")
    key = _analysis_key(job, sanitized)
    path = cache / f"{key}.json" if cache is not None else None
    if path is not None and path.is_file():
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            return OriginalAnalysis.from_json(json.loads(path.read_text(encoding="utf-8")))
    job.budget.enter("studying the original")
    runs = _Runs(job, sanitized)
    first = base_cases(job)
    job.ctx.report("validating", "timing the original at the validation sizes", 10)
    await gate_for_tests("validating", job.ctx)
    fit, case_est_ms = await _fit_sizes(runs, first[0])
    if fit.sizes != tuple(job.tuning.edge_sizes):
        job = replace(job, tuning=replace(job.tuning, edge_sizes=fit.sizes))
        runs = _Runs(job, sanitized)
    job.ctx.report("validating", "checking that the generated inputs are valid for the original",
                   12)
    extra = [Case(c.profile, c.seed + 1000 + k) for c in first[::job.tuning.seeds_per_profile]
             for k in range(job.tuning.search_seeds)] if job.tuning.mutants else []
    # The memory probe runs here too, on the original alone: a partner input the original
    # fails on makes that size invalid for the case, never a candidate's fault. A case is
    # given many times what the scan says it takes (inputs of other profiles may be slower).
    case_ms = _validity_ms(job, case_est_ms)
    run = await runs.check(first + extra, sides="A", case_ms=case_ms, probe=True)
    seen = _read_validity(run, job.workdir)
    valid, rejected, recorded = list(seen.valid), list(seen.rejected), dict(seen.recorded)
    per_case_s = run.proc.wall_s / max(len(first) + len(extra), 1)
    first_keys = {c.key for c in first}
    valid_first = [c for c in valid if c.key in first_keys]
    valid_extra = [c for c in valid if c.key not in first_keys]
    if not valid_first:
        detail = rejected[0] if rejected else "the inputs could not be checked"
        return verdicts.inputs_unusable(
            job.mode, job.site.name, f"the original itself fails on every generated input "
            f"({detail})", detail)
    # Records that hold nothing agree with every other record: such inputs judge nothing,
    # and no mutant can be said to be caught by them.
    blind = not any(recorded.get(c.key, 0) for c in valid)
    study = _Study()
    notes: list[str] = []
    used = list(valid_first)
    if blind:
        notes.append("the bench records no output (no return value, no modified argument, "
                     "nothing recorded by the spec): outputs could not be compared, so "
                     "mutants were not run")
    elif job.tuning.mutants:
        job.ctx.report("validating", "checking that the inputs catch mutants of the original", 15)
        study = await _mutation(job, valid_first, per_case_s)
        if study.note:
            notes.append(study.note)
        if study.open and valid_extra:
            again = await _mutation(job, valid_extra, per_case_s, only=study.open)
            if len(again.open) < len(study.open):
                used += valid_extra
                study = study.narrowed(again)
    reach = await _timing_reach(runs, valid_first[0])
    if isinstance(reach, Failure):
        return reach
    coverage = _Coverage(job) if job.tuning.coverage else None
    lines = await coverage.run(used) if coverage is not None else None
    search = ""
    if not blind:
        found = await _search(job, runs, coverage, lines, study, per_case_s)
        if found is not None:
            used += list(found.kept)
            lines = found.reach
            study = study.closed(found.killed)
            search = found.note
            notes.append(found.note)
    survivors, strong_count, open_constants = _survivor_texts(study)
    verification = Verification(
        cases=len(used), rejected_cases=len(rejected),
        sizes=tuple(job.tuning.edge_sizes), mutants=len(study.mutants),
        killed=len(study.mutants) - len(study.open),
        survivors=survivors, strong_survivors=strong_count,
        branches=lines.branches if lines and lines.branches else None,
        branches_taken=lines.taken if lines and lines.branches else None,
        sanitizers=sanitized, notes=tuple(notes), undecided=len(study.undecided), blind=blind,
        lines=len(lines.lines) if lines else None,
        unreached=lines.unreached if lines else (), search=search)
    took = max((seen.case_ms.get(c.key, 0) for c in valid_first), default=0)
    analysis = OriginalAnalysis(tuple(used), tuple(rejected), verification, reach[0],
                                open_constants, tuple(job.tuning.edge_sizes), fit.note, took,
                                reach[1])
    if path is not None:
        with contextlib.suppress(OSError):
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(analysis.to_json()), encoding="utf-8")
            os.replace(tmp, path)
    return analysis


async def _fit_sizes(runs: _Runs, case: Case) -> tuple[EdgeFit, float]:
    """The validation sizes that fit the original's time (see ``size_fit``), and the time
    (ms) one case takes at them, as far as the scan says (0 when it cannot say).

    Bench specs choose their own sizes: they are left as they are."""
    job = runs.job
    t = job.tuning
    sizes = tuple(t.edge_sizes)
    if job.mode != "harness" or not sizes:
        return EdgeFit(sizes), 0.0
    ladder = scan_ladder(sizes)
    limit_ns = int(t.edge_call_s * 1e9)
    # The scan's child may spend a little past the limit on the call that ends it; a call that
    # needs longer still ends the scan by running out of time.
    scan_ms = _case_ms(job, int(max(1000, 40 * t.edge_call_s * 1000)))
    run = await runs.check([Case(case.profile, case.seed)], sides="A", case_ms=scan_ms,
                           sizes=",".join(map(str, ladder)), stop_ns=limit_ns, times=True,
                           exact=True)
    times = {int(e.get("size", 0)): int(e.get("ns", 0)) for e in run.events
             if e.get("event") == "size"}
    timed_out = [int(e.get("size", 0)) for e in run.events
                 if e.get("event") == "invalid" and e.get("status") == "timeout"]
    fit = fit_sizes(job.site.name, sizes, times, limit_ns,
                    min(timed_out) if timed_out else None, scan_ms * 1_000_000)
    # One case: a call at each kept size, the probe's three at the second largest, setup.
    at = [times.get(n, 0) for n in fit.sizes]
    estimate_ms = (sum(at) + 3 * max(at, default=0)) / 1e6 if times else 0.0
    return fit, estimate_ms


def _validity_ms(job: Job, estimate_ms: float) -> int:
    """The time limit of one case of the original alone: the old fixed one, or far less when
    the scan says what a case takes (many times it, and never below the floor)."""
    ceiling = _case_ms(job, 5000)
    if estimate_ms <= 0:
        return ceiling
    floor = int(job.tuning.case_floor_s * 1000)
    return min(ceiling, max(floor, int(job.tuning.cutoff_factor * estimate_ms)))


async def _search(job: Job, runs: _Runs, coverage: _Coverage | None, lines: Reach | None,
                  study: _Study, per_case_s: float) -> SearchOutcome[Case] | None:
    """More input cases for the lines and strong mutants the study left (see
    ``input_search``); None when there was nothing to search for."""
    t = job.tuning
    open_strong = tuple(m for m in study.open if m.strong and m.id not in study.undecided)
    if not (t.search_rounds > 0 and t.search_budget_s > 0):
        return None
    seconds = min(t.search_budget_s, 0.1 * job.budget.left())
    pool = bool(original_pool(job))

    async def validate(cases: list[Case]) -> list[Case]:
        run = await runs.check(cases, sides="A", case_ms=_validity_ms(job, 1000 * per_case_s),
                               probe=True)
        return list(_read_validity(run, job.workdir).valid)

    async def kill(cases: list[Case], targets: tuple[Mutant, ...]) -> frozenset[int]:
        again = await _mutation(job, cases, per_case_s, only=targets)
        still = {m.id for m in again.open}
        return frozenset(m.id for m in targets if m.id not in still)

    job.ctx.report("validating", "searching for inputs that reach untested code", 18)
    return await search_inputs(
        make_case=Case, seed=t.seed, profiles=search_profiles(pool), per_profile=1,
        rounds=t.search_rounds, seconds=seconds, reach=lines, open_strong=open_strong,
        validate=validate, cover=coverage.run if coverage is not None else None,
        kill=kill if t.mutants and study.mutants else None)


@dataclass(frozen=True)
class _Study:
    """Mutation analysis: every mutant, those the inputs did not tell apart (``open``:
    survivors and undecided ones, in id order), and why some were not decided."""

    mutants: tuple[Mutant, ...] = ()
    open: tuple[Mutant, ...] = ()
    undecided: dict[int, str] = field(default_factory=dict)  # mutant id -> why not decided
    note: str = ""

    def narrowed(self, again: _Study) -> _Study:
        """This study with the mutants ``again`` (a run on more cases) told apart closed."""
        still = {m.id for m in again.open}
        why = {k: v for k, v in again.undecided.items() if k in still}
        return replace(self, open=tuple(m for m in self.open if m.id in still), undecided=why)

    def closed(self, killed: frozenset[int]) -> _Study:
        """This study with the mutants ``killed`` (told apart by more cases) closed."""
        if not killed:
            return self
        return replace(self, open=tuple(m for m in self.open if m.id not in killed),
                       undecided={k: v for k, v in self.undecided.items() if k not in killed})


def _survivor_texts(study: _Study) -> tuple[tuple[str, ...], int, tuple[OpenConstant, ...]]:
    """The survivors as the verification lists them (strong first), how many are strong, and
    the open strong constants. Mutants of one constant make one entry: ``the modulus
    1000000007 on line 4``."""
    undecided = study.undecided
    strong: list[str] = []
    weak: list[str] = []
    constants: list[OpenConstant] = []
    seen: set[tuple[int, str]] = set()
    for m in study.open:
        why = undecided.get(m.id)
        suffix = f" (not decided: {why})" if why else ""
        if m.kind in CONSTANT_KINDS and m.subject:
            if (m.line, m.subject) in seen:
                continue
            seen.add((m.line, m.subject))
            text = f"{m.subject} on line {m.line}"
            if m.strong:
                constants.append(OpenConstant(text, m.role, m.value))
        else:
            text = f"line {m.line}: {m.description}{suffix}"
        (strong if m.strong else weak).append(text)
    return tuple(strong + weak), len(strong), tuple(constants)


async def _timing_reach(runs: _Runs, case: Case) -> tuple[int, str] | Failure:
    """The largest size (doubling from the smallest timing size) at which ``case`` and its
    partner (timing alternates the two) are valid for the original, scanning upwards until a
    call takes long enough to be timed, and why timing must stop there (empty: it need not).

    Inputs that are valid at small sizes can stop being valid as they grow (values that index
    a buffer whose size does not grow with them): timing past that point would run the
    original out of bounds and blame whatever crashed next. A size at which one call runs out
    of time ends the scan too (an exponential original from one doubling to the next): timing
    there would wait out the time limit.
    """
    job = runs.job
    t = job.tuning
    sizes: list[int] = []
    n = max(t.min_size, 1)
    while n < t.max_size:
        sizes.append(n)
        n *= 2
    sizes.append(t.max_size)
    # Sanitized calls run a few times slower than the timed build: stop well past the target.
    stop_ns = int(max(0.02, 10 * t.target_sample_s) * 1e9)
    # A call that takes over 150 times that is far too slow to time pairs of: no need to wait
    # longer for it.
    case_ms = _case_ms(job, int(max(3000, 150 * stop_ns / 1e6)))
    run = await runs.check([Case(case.profile, case.seed), partner(case)], sides="A",
                           case_ms=case_ms, sizes=",".join(map(str, sizes)),
                           stop_ns=stop_ns)
    bad = [e for e in run.events if e.get("event") == "invalid"]
    if not bad:
        return t.max_size, ""
    first = min(bad, key=lambda e: int(e.get("size", 0)))
    limit = int(first.get("size", 0))
    fine = [s for s in sizes if s < limit]
    slow = first.get("status") == "timeout"
    validated = [s for s in t.edge_sizes if 0 < s < limit and s not in case.skip]
    if not fine and slow and validated:
        # Too slow even at the smallest timing size (an exponential original): time at the
        # largest size the case was validated at instead, below that smallest size.
        fine = [max(validated)]
    if not fine:
        why = _why(first, job.workdir)
        return verdicts.inputs_unusable(
            job.mode, job.site.name, f"at the smallest size worth timing the original {why} "
            f"on {case.describe()}", f"original {why}")
    if slow:
        return max(fine), (f"one call of the original at size {limit} takes longer than "
                           f"{case_ms / 1000:g} s")
    return max(fine), "larger generated inputs are invalid for the original"


def _case_ms(job: Job, ceiling: int) -> int:
    return int(min(ceiling, job.settings.run_timeout_s * 1000))


def _analysis_key(job: Job, sanitized: bool) -> str:
    t = job.tuning
    h = hashlib.sha256()
    # The driver and the mutant generator decide the outcome as much as the sources do.
    for header in sorted((job.workdir / "include").glob("*.hpp")):
        h.update(header.read_bytes())
    h.update(schemata(job.site, LEVELS[0]).unit_text.encode())
    for part in (_ANALYSIS_VERSION, job.units[0], job.bench, job.tc.cc, " ".join(job.tc.flags),
                 str(job.tc.openmp), str(sanitized), repr(t.edge_sizes), repr(t.profiles),
                 str(t.seeds_per_profile), str(t.search_seeds), str(t.seed), str(t.mutants),
                 str(t.coverage), str(t.edge_call_s), str(t.search_rounds),
                 str(t.search_budget_s), job.site.qualified_name):
        h.update(part.encode() + b"\0")
    return h.hexdigest()


async def _mutation(job: Job, cases: list[Case], per_case_s: float,
                    only: tuple[Mutant, ...] | None = None) -> _Study:
    """Every mutant and which of them ``cases`` tell apart from the original.

    Only a difference in outputs, or a crash or hang of the mutant's own call on inputs the
    original handled, decides a mutant (it is killed). A run that timed out or crashed
    anywhere else (setting inputs up, the original's call), or that ran into a time limit
    too short to tell a hang from slow inputs, decides nothing: the mutant stays open, as
    "not decided", and counts as a survivor.
    """
    entry = job.units[0][len(job.site.unit_text):]
    name = f"unit_mut{job.tc.suffix}"
    built: Compiled | None = None
    mutants: tuple[Mutant, ...] = ()
    for level in LEVELS:
        sch = schemata(job.site, level)
        if not sch.mutants:
            return _Study()
        built = await compile_shared(job.sandbox, job.tc, job.workdir, "a", sch.unit_text + entry,
                                     name, timeout_s=job.settings.build_timeout_s, ctx=job.ctx,
                                     tag="_mut", cache=BuildCache.default()
                                     if job.tuning.build_cache else None,
                                     unprivileged=job.compile_as_nobody)
        if built.ok:
            mutants = sch.mutants
            break
    if built is None or not built.ok:
        return _Study(note="mutation analysis skipped: no mutant of the original compiles")
    make_writable_for_runs(job.workdir, job.sandbox)
    targets = list(only) if only is not None else list(mutants)
    # One child runs every case for a mutant, both sides: the time the original's side needs
    # (from the sanitized validity run, an overestimate) times a margin, within bounds. A
    # hang is told from slow inputs only when the limit was not cut by the upper bound.
    needed_ms = per_case_s * 1000 * len(cases)
    case_ms = int(min(_MUTANT_MS_MAX, max(_MUTANT_MS_MIN, 3 * needed_ms + 200)))
    hang_decides = case_ms >= 3 * needed_ms
    args: dict[str, object] = {"sizes": _sizes(job), "cases": _cases_arg(cases),
                               "ids": ",".join(str(m.id) for m in targets), "case_ms": case_ms,
                               "seed": job.tuning.seed, "mem_mb": job.tuning.memory_mb}
    consts = pool_arg(original_pool(job))
    if consts:
        args["consts"] = consts
    timeout = job.settings.run_timeout_s + len(targets) * case_ms / 1000
    run = await run_driver(job.sandbox, job.workdir, "mutants", args, env=job.env(1),
                           timeout_s=timeout, limits=job.limits(1), ctx=job.ctx,
                           libs=(LIB_A, built.output))
    ends = {int(e["id"]): e for e in run.events if e.get("event") == "mutant"}
    still: list[Mutant] = []
    undecided: dict[int, str] = {}
    for m in targets:
        event = ends.get(m.id)
        if event is None:
            # The run did not reach it (it stopped early): unknown.
            still.append(m)
            undecided[m.id] = "the run stopped before it"
            continue
        outcome = mutant_outcome(event, hang_decides)
        if outcome != "killed":
            still.append(m)
            if outcome != "survived":
                undecided[m.id] = outcome
    return _Study(mutants, tuple(still), undecided)


_MUTANT_MS_MIN = 300
_MUTANT_MS_MAX = 3000


def mutant_outcome(event: dict[str, Any], hang_decides: bool) -> str:
    """``killed``, ``survived``, or why a mutant run decided nothing (``timed out``, ...).

    ``event`` is the driver's mutant event: its status, and which side was running when the
    child ended (B: the mutant's own call, after the original's call on the same input
    returned)."""
    status = str(event.get("status"))
    if status == "mismatch":
        return "killed"
    if status == "ok":
        return "survived"
    own_call = event.get("side") == "B"
    if own_call and status in ("crash", "sanitizer"):
        return "killed"
    if own_call and status == "timeout" and (hang_decides or _hung_against_original(event)):
        return "killed"
    if status == "timeout":
        return ("timed out" if own_call else
                "timed out outside the mutant's own call")
    return f"the run ended ({status}) outside the mutant's own call"


def _hung_against_original(event: dict[str, Any]) -> bool:
    """Whether the mutant's own call, when the time limit ended it, had run far longer than the
    original's call on the very same input: a hang told from slow inputs even where the
    limit for the whole run was too short to decide by itself."""
    a_ns, b_ns = int(event.get("a_ns") or 0), int(event.get("b_ns") or 0)
    return a_ns > 0 and b_ns >= _HANG_RATIO * a_ns + _HANG_MARGIN_NS


# Far beyond what noise or a cold cache makes of one call, and never decided in a blink.
_HANG_RATIO = 20
_HANG_MARGIN_NS = 200_000_000


class _Coverage:
    """The original built for gcov, run on cases: every run adds to the same counters, so each
    answer is the reach of every case run so far."""

    def __init__(self, job: Job) -> None:
        self.job = job
        self.lib: str | None = None
        self.failed = False

    async def _build(self) -> str | None:
        job = self.job
        if self.lib is not None or self.failed:
            return self.lib
        gcov = shutil.which("gcov")
        if gcov is None or "clang" in Path(job.tc.cc).name:
            self.failed = True  # gcov reads GCC's coverage notes only
            return None
        built = await compile_shared(job.sandbox, job.tc, job.workdir, "a", job.units[0],
                                     f"unit{job.tc.suffix}", extra=("-O0", "--coverage"),
                                     timeout_s=job.settings.build_timeout_s, ctx=job.ctx,
                                     tag="_cov", unprivileged=job.compile_as_nobody)
        if not built.ok:
            self.failed = True
            return None
        make_writable_for_runs(job.workdir, job.sandbox)
        self.lib = built.output
        return self.lib

    async def run(self, cases: list[Case]) -> Reach | None:
        """Run ``cases`` under coverage; the reach of everything run so far (None when
        coverage is not available or the run failed)."""
        job = self.job
        lib = await self._build()
        gcov = shutil.which("gcov")
        if lib is None or gcov is None or not cases:
            return None
        run = await _Runs(job, False).check(cases, sides="A", case_ms=_case_ms(job, 20000),
                                            libs=(lib, lib), fork=False, driver="./driver")
        if run.first("done") is None:
            return None
        data = sorted((job.workdir / "a").glob("*.gcda"))
        if not data:
            return None
        res = await run_sandboxed(job.sandbox, [gcov, "-b", "--json-format", "--stdout",
                                                str(data[0].relative_to(job.workdir))],
                                  job.workdir, timeout_s=60, limits=Limits(), ctx=job.ctx,
                                  unprivileged=job.compile_as_nobody)
        return read_gcov(res.stdout, f"unit{job.tc.suffix}", job.site.first_line,
                         job.site.last_line)


def branch_counts(gcov_json: str, unit_name: str, first: int, last: int) -> tuple[int, int] | None:
    """(branches, taken) on lines ``first``..``last`` of ``unit_name`` in gcov's JSON."""
    reach = read_gcov(gcov_json, unit_name, first, last)
    return (reach.branches, reach.taken) if reach is not None and reach.branches else None


async def check_candidate(job: Job, analysis: OriginalAnalysis,
                          sanitized: bool) -> Failure | Verification:
    """Compare the candidate with the original on every valid case (and thread count), and on
    cases drawn from the constants the candidate brings."""
    runs = _Runs(job, sanitized)
    job.budget.enter("comparing the candidate with the original")
    threads = [1] + ([job.tuning.race_threads] if job.tc.openmp else [])
    limit = candidate_case_limit(job, analysis.case_ms)
    for t in threads:
        job.ctx.report("validating", f"comparing outputs on {len(analysis.valid)} input cases"
                       + (f" at {t} threads" if t > 1 else ""), 25)
        await gate_for_tests("validating", job.ctx)
        before = CpuSnapshot.now()
        run = await runs.check(analysis.valid, sides="AB", threads=t, case_ms=limit.ms,
                               probe=True)
        failed = verdicts.forged(run.forged) or _candidate_failure(job, run, t, limit)
        if failed is not None:
            return _contended(job, failed, t, CpuSnapshot.now().pressure_since(before))
    verification = analysis.verification
    notes: list[str] = []
    mine = candidate_constants(job)
    theirs = set(original_pool(job))
    # Integers within the signed profile's span at the largest edge size are drawn already.
    span = max(job.tuning.edge_sizes, default=0)
    added = [v for v in mine.pool if v not in theirs and
             not (isinstance(v, int) and abs(v) <= span)]
    if added and CONSTANTS_PROFILE in job.tuning.profiles:
        failed_or_note = await _check_constants(job, runs, added)
        if isinstance(failed_or_note, Failure):
            return failed_or_note
        notes.append(failed_or_note)
    verification = _settle_constants(verification, analysis.open_constants, mine.uses)
    races = ""
    if job.tc.openmp:
        races = (f"data races checked only by comparing outputs at 1 and "
                 f"{job.tuning.race_threads} threads (no race detector)")
    return replace(verification, races=races, notes=verification.notes + tuple(notes))


@dataclass(frozen=True)
class CandidateConstants:
    """The numbers a candidate is written with: ``pool`` for input generation (its function's
    constants, and numbers its unit has that the original's does not), ``uses`` the
    (role, value) of each constant in its function."""

    pool: tuple[Number, ...]
    uses: frozenset[tuple[str, str]]


def candidate_constants(job: Job) -> CandidateConstants:
    """The candidate's constants (see ``CandidateConstants``)."""
    site = job.site
    entry = job.units[0][len(site.unit_text):]
    unit_b = job.units[1][:len(job.units[1]) - len(entry)] if entry and \
        job.units[1].endswith(entry) else job.units[1]
    found: tuple[Constant, ...] = ()
    with contextlib.suppress(LocateError, ValueError):
        cand = function_by_name(unit_b, site.language, site.qualified_name, check_errors=False)
        found = _constants(unit_b, site.language, cand.start_byte, cand.end_byte)
    theirs = set(unit_literals(site.unit_text, site.language))
    new = [v for v in unit_literals(unit_b, site.language) if v not in theirs]
    pool = input_pool([c.value for c in found] + new)
    uses = frozenset((c.role, format_number(c.value)) for c in found)
    return CandidateConstants(pool, uses)


async def _check_constants(job: Job, runs: _Runs, added: list[Number]) -> Failure | str:
    """Both sides on the constants profile drawn from the candidate's own constants (and the
    original's). The cached study never saw these inputs: a failure of the original on them
    (attributed by the driver, as in the study) marks them invalid, not the candidate wrong."""
    pool = input_pool(added + list(original_pool(job)))
    t = job.tuning
    cases = [Case(CONSTANTS_PROFILE, t.seed + 2000 + k) for k in range(max(t.seeds_per_profile, 1))]
    shown = ", ".join(format_number(v) for v in added[:4]) + (", ..." if len(added) > 4 else "")
    job.ctx.report("validating", f"comparing outputs on inputs near the candidate's constants "
                   f"({shown})", 30)
    run = await runs.check(cases, sides="AB", case_ms=_case_ms(job, 10000), pool=pool)
    failed = verdicts.forged(run.forged) or _candidate_failure(job, run, 1)
    if failed is not None:
        said = f"values near the candidate's constants ({shown})"
        return replace(failed, message=failed.message.replace("constants values", said),
                       validation_detail=failed.validation_detail.replace("constants values",
                                                                          said))
    ok = sum(1 for e in run.events if e.get("event") == "case" and e.get("status") == "ok")
    if not ok:
        return (f"inputs near the candidate's constants ({shown}) are invalid for the "
                "original: not compared")
    return f"outputs also agree on inputs near the candidate's constants ({shown})"


def _settle_constants(v: Verification, open_constants: tuple[OpenConstant, ...],
                      uses: frozenset[tuple[str, str]]) -> Verification:
    """``v`` without the untested constants the candidate keeps as they are (the same value
    in the same role): the inputs cannot tell whether the constant matters, but the
    candidate did not change it. A note says so."""
    kept = [o for o in open_constants if (o.role, o.value) in uses and o.text in v.survivors]
    if not kept:
        return v
    gone = {o.text for o in kept}
    strong = [x for x in v.survivors[:v.strong_survivors] if x not in gone]
    weak = list(v.survivors[v.strong_survivors:])
    notes = tuple(f"{o.text} was never exercised by the inputs; the candidate keeps it "
                  "unchanged" for o in kept)
    return replace(v, survivors=tuple(strong + weak), strong_survivors=len(strong),
                   notes=v.notes + notes)


async def check_beyond(job: Job, case: Case, timed: int, threads: int,
                       valid_up_to: int | None,
                       calibration: tuple[tuple[int, int, int], ...] = (),
                       limit_why: str = "") -> Failure | str:
    """Outputs compared once past the timed size ``timed``: at ``beyond_factor`` times it, or
    at the largest doubling of it at which one call of the original stays within
    ``beyond_budget_s``, whichever is smaller, and not past ``valid_up_to`` (the largest size
    the study found the inputs valid at, when it found a limit; ``limit_why`` says why it is
    the limit, when it is not invalid inputs past it). ``calibration`` holds the
    timing run's (size, ns of the original's call, ns of the candidate's) steps, which predict
    the original's time. Unsanitized builds, as timing uses: the sanitized original at 4x the
    timed size, with every output element recorded in the sanitized driver, costs several
    times more. Returns the failure, or what was checked as a phrase."""
    t = job.tuning
    budget_ns = t.beyond_budget_s * 1e9
    top = timed * max(t.beyond_factor, 1)
    if valid_up_to is not None:
        top = min(top, valid_up_to)
    if timed <= 0:
        return ""
    limited = limit_why or "larger inputs are invalid for the original"
    if top <= timed:
        return f"outputs not compared past the timed size {timed}: {limited}"
    growth, call_ns = call_growth(calibration, timed)
    fits = [n for n in [timed << k for k in range(1, 8)] + [top]
            if timed < n <= top and call_ns * (n / timed) ** growth <= budget_ns]
    slow = f"one call of the original would take longer than {t.beyond_budget_s:g} s"
    if not fits:
        return f"outputs not compared past the timed size {timed}: {slow}"
    size = max(fits)
    job.budget.enter("comparing outputs past the timed size")
    job.ctx.report("validating", f"comparing outputs past the timed size (at {size})", 78)
    fixed = _case_ms(job, int(max(10000, 8000 * t.beyond_budget_s)))
    # The original's predicted call (and setting inputs up) gives the candidate's cut-off.
    predicted_ms = int(call_ns * (size / timed) ** growth / 1e6) + 1 if call_ns > 0 else 0
    cut = _relative_limit(job, fixed, predicted_ms)
    run = await _Runs(job, False).check(
        [Case(case.profile, case.seed)], sides="AB", threads=threads,
        case_ms=cut.ms, sizes=str(size), exact=True)
    failed = verdicts.forged(run.forged)
    stalled = stalled_elsewhere(run, job.workdir)
    if failed is None and stalled:
        return f"outputs not compared past the timed size {timed}: {stalled}"
    failed = failed or _candidate_failure(job, run, threads, cut)
    if failed is not None:
        return replace(failed, message=failed.message.replace(
            "The candidate's output differs", "Past the timed size, the candidate's output "
            "differs"))
    end = run.last("case")
    if end is None or end.get("status") != "ok":
        why = ("larger inputs are invalid for the original" if run.first("invalid") else
               "the bench spec allows no larger size" if job.mode == "spec" else
               "the check did not run")
        return f"outputs not compared past the timed size {timed}: {why}"
    times = f"{size // timed}x" if size % timed == 0 else f"{size / timed:.1f}x"
    if size == timed * t.beyond_factor:
        phrase = f"outputs also agree at size {size}, {times} the timed size"
    else:
        why = limited if size == valid_up_to else slow
        phrase = f"outputs also agree at size {size}, {times} the timed size (beyond it {why})"
    # A candidate that tests the size against a number of its own (`n > 20000`) may change
    # course only past it: each such threshold the original reaches within the budget is a
    # size to compare at, just below and at it.
    limit = valid_up_to if valid_up_to is not None else 1 << 30
    thresholds = sorted({int(v) for v in candidate_constants(job).pool
                         if isinstance(v, int) and size < v < limit
                         and call_ns * ((v + 1) / timed) ** growth <= budget_ns})[:2]
    if not thresholds:
        return phrase
    sizes = sorted({n for k in thresholds for n in (k, k + 1)})
    job.ctx.report("validating", "comparing outputs at the candidate's size thresholds "
                   f"({', '.join(map(str, thresholds))})", 79)
    run = await _Runs(job, False).check(
        [Case(case.profile, case.seed)], sides="AB", threads=threads,
        case_ms=_case_ms(job, int(max(10000, 8000 * t.beyond_budget_s * len(sizes)))),
        sizes=",".join(map(str, sizes)), exact=True)
    failed = verdicts.forged(run.forged)
    stalled = stalled_elsewhere(run, job.workdir)
    if failed is None and stalled:
        return f"{phrase}; not compared at the candidate's size thresholds ({stalled})"
    failed = failed or _candidate_failure(job, run, threads)
    if failed is not None:
        return replace(failed, message=failed.message.replace(
            "The candidate's output differs", "At a size threshold of its own, the candidate's "
            "output differs"))
    end = run.last("case")
    if end is None or end.get("status") != "ok":
        return f"{phrase}; not compared at the candidate's size thresholds (the check stopped)"
    return f"{phrase}, and at sizes {', '.join(map(str, sizes))} around the candidate's constants"


def _contended(job: Job, failed: Failure, threads: int, pressure: float | None) -> Failure:
    """``failed``, unless it is a multi-thread timeout while other work held the cores: the
    candidate passed at one thread, and threads that wait on each other stall for whole time
    slices when a core is taken, so the limit says nothing of the candidate then."""
    if failed.verdict != "timeout" or threads <= 1 or pressure is None or \
            pressure < job.tuning.parallel_pressure_gate:
        return failed
    why = (f"the {threads}-thread check ran past its limit while CPU pressure was "
           f"{pressure:.0f}%: other work held the cores the threads needed")
    return Failure("noisy", f"Not decided: {why}. Re-run when the machine is quieter.",
                   "skipped", why)


def stalled_elsewhere(run: DriverRun, workdir: Path) -> str:
    """Why a check past the timed size stopped outside the candidate's call, or "": the
    original itself failed there, or setting large inputs up ran out of time (a busy
    machine). Neither says anything of the candidate. A crash outside both calls still
    counts against it: memory it corrupted may fail only later, in the comparison."""
    for event in run.events:
        if event.get("event") != "case":
            continue
        side, status = event.get("side"), event.get("status")
        if (side == "A" and status in ("timeout", "crash", "sanitizer")) or \
                (side not in ("A", "B") and status == "timeout"):
            return f"the check {_why(event, workdir)}"
    return ""


def call_growth(steps: tuple[tuple[int, int, int], ...], timed: int) -> tuple[float, float]:
    """How the original's time grows with the size (the exponent over the last calibration
    step, at least 1) and its call time at ``timed`` (ns; 0 when unknown)."""
    known = sorted((size, a) for size, a, _ in steps if 0 < size <= timed and a > 0)
    if not known:
        return 1.0, 0.0
    size, a = known[-1]
    growth = 1.0
    if len(known) > 1:
        size0, a0 = known[-2]
        if size > size0 and a > a0:
            growth = min(30.0, max(1.0, math.log(a / a0) / math.log(size / size0)))
    return growth, a * (timed / size) ** growth


@dataclass(frozen=True)
class CaseLimit:
    """The time limit of one validation case of both sides (ms), and the original's own time
    on a case it derives from (0: the fixed limit, not the original's time)."""

    ms: int
    original_ms: int = 0

    def exceeded(self, factor: int) -> str:
        """Why a candidate that ran past this limit was stopped (a clause)."""
        if not self.original_ms:
            return ""
        return (f"it ran past {self.ms / 1000:g} s, over {factor}× the {self.original_ms} ms "
                "the original takes on the whole case; it is far slower, or never returns")


def candidate_case_limit(job: Job, original_ms: int) -> CaseLimit:
    """A candidate's case is stopped once it has run ``cutoff_factor`` times the original's
    time on it (the study's, sanitized), never below the floor and never past the fixed
    limit: a slow candidate is told apart in seconds, not after the fixed limit on every
    case."""
    return _relative_limit(job, _case_ms(job, 10000), original_ms)


def _relative_limit(job: Job, ceiling: int, original_ms: int) -> CaseLimit:
    """``cutoff_factor`` times ``original_ms`` (the original's share of the case), within the
    floor and ``ceiling``; it names the original's time when it is at least that multiple."""
    if original_ms <= 0:
        return CaseLimit(ceiling)
    t = job.tuning
    multiple = (1 + t.cutoff_factor) * original_ms
    limit = min(ceiling, max(int(t.case_floor_s * 1000), multiple))
    return CaseLimit(limit, original_ms if limit >= multiple else 0)


def _candidate_failure(job: Job, run: DriverRun, threads: int,
                       limit: CaseLimit | None = None) -> Failure | None:
    at = f" at {threads} threads" if threads > 1 else ""
    mismatches = {(int(e.get("profile", 0)), int(e.get("seed", 0))): e for e in run.events
                  if e.get("event") == "mismatch"}
    for event in run.events:
        if event.get("event") != "case" or event.get("status") == "ok":
            continue
        case = _case_of(event)
        status = str(event.get("status"))
        if status == "mismatch":
            m = mismatches.get(case.key, {})
            detail = f"size {m.get('size', event.get('size'))}, {case.describe()}{at}: " \
                     f"{m.get('detail', 'outputs differ')}"
            if m.get("memory"):
                return verdicts.from_memory(detail)
            return Failure("incorrect", f"The candidate's output differs from the original's at "
                           f"{detail}.", "failed", detail)
        if event.get("side") == "B":
            why = _why(event, job.workdir)
            cut = limit.exceeded(job.tuning.cutoff_factor) if limit is not None \
                and status == "timeout" else ""
            detail = (f"candidate was stopped at size {event.get('size')} ({case.describe()}"
                      f"{at}): {cut}" if cut else
                      f"candidate {why} ({case.describe()}{at}); the original did not")
            word = "timeout" if status == "timeout" else "incorrect"
            return Failure(word, f"The {detail}.", "failed", detail)
        if status in ("crash", "sanitizer"):
            detail = f"the check stopped ({_why(event, job.workdir)}, {case.describe()}{at})"
            return Failure("incorrect", f"Validation failed: {detail}.", "failed", detail)
        if status == "timeout" and event.get("side") != "A":
            # Setting inputs up (neither side running) ran out of time: nothing was judged.
            detail = f"the check {_why(event, job.workdir)} ({case.describe()}{at})"
            return Failure("timeout", f"Validation did not finish: {detail}.", "failed",
                           detail)
    if run.first("done") is None:
        return Failure("incorrect", "Validation stopped without a result"
                       f"{at}: {run.crashed or 'no report'}.", "failed",
                       "validation stopped without a result")
    return None


async def build_sanitized(job: Job, cache: BuildCache | None) -> tuple[Compiled, ...]:
    """The sanitized builds of A, B and the driver (compiled side by side)."""
    from perfpilot.runner.build import compile_driver

    name = f"unit{job.tc.suffix}"
    t = job.settings.build_timeout_s
    nobody = job.compile_as_nobody
    return tuple(await asyncio.gather(
        compile_shared(job.sandbox, job.tc, job.workdir, "a", job.units[0], name,
                       extra=SAN_FLAGS, timeout_s=t, ctx=job.ctx, tag="_san", cache=cache,
                       unprivileged=nobody),
        compile_shared(job.sandbox, job.tc, job.workdir, "b", job.units[1], name,
                       extra=SAN_FLAGS, timeout_s=t, ctx=job.ctx, tag="_san", cache=cache,
                       unprivileged=nobody),
        # The driver only calls the two sides on small inputs: -O0 compiles it in a third of
        # the time (the functions under test keep their own flags).
        compile_driver(job.sandbox, job.tc, job.workdir, job.bench, extra=(*SAN_FLAGS, "-O0"),
                       timeout_s=t, ctx=job.ctx, cache=cache, unprivileged=nobody,
                       output="driver_san")))
