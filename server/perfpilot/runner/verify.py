"""Verification: inputs valid for the original and strong enough to judge a candidate.

Before a candidate is compared, the original is studied once (and the result cached):
1. Validity: every input case (a value profile and a seed) is run on the original alone, built
   with AddressSanitizer and UndefinedBehaviorSanitizer. A case on which the original crashes,
   hangs or has undefined behaviour is invalid input, never a candidate's fault.
2. Strength: simple mutants of the original (see ``code.mutants``) are compared with it on the
   valid cases; more seeds are tried against the survivors. A surviving strong mutant makes
   the verdict ``weakly-verified``.
3. Reach: branch coverage of the original under the valid cases (gcov).
Then the candidate is compared with the original on the valid cases, both sanitized, each case
in a child process of the driver (a crash or a hang ends only that case); parallel candidates
also at several threads, where races show as differences. Each case also runs the memory probe
(see the driver): its inputs are overwritten in place with its partner's and restored, so a
function that answers from memory of its last input returns a stale answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import re
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from perfpilot.code.mutants import LEVELS, Mutant, schemata
from perfpilot.progress import gate_for_tests
from perfpilot.runner import verdicts
from perfpilot.runner.build import BuildCache, Compiled, cache_folder, compile_shared
from perfpilot.runner.driver_run import LIB_A, LIB_B, DriverRun, run_driver
from perfpilot.runner.job import Job
from perfpilot.runner.sandbox import Limits, make_writable_for_runs, run_sandboxed, signal_name
from perfpilot.runner.values import Verification
from perfpilot.runner.verdicts import Failure

PROFILE_NAMES = ("natural", "signed", "small", "sorted", "wide", "extreme", "special",
                 "aliased")
SAN_FLAGS = ("-fsanitize=address,undefined", "-fno-sanitize-recover=all",
             "-fno-omit-frame-pointer")
SAN_EXIT = 86
LIB_A_SAN = "a/liba_san.so"
LIB_B_SAN = "b/libb_san.so"
DRIVER_SAN = "./driver_san"
_ANALYSIS_VERSION = "3"


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
    """Every profile of the tuning with its first seeds."""
    t = job.tuning
    return [Case(p, t.seed + k) for p in t.profiles for k in range(t.seeds_per_profile)]


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
class OriginalAnalysis:
    """What studying the original found; shared by every candidate of the same original."""

    valid: tuple[Case, ...]
    rejected: tuple[str, ...]  # why cases were invalid, one sentence each
    verification: Verification
    # The largest size at which the first valid case is valid for the original (sizes are
    # scanned upwards, sanitized, until a call takes long enough to time): timing stays there.
    timing_max_size: int = 0

    def to_json(self) -> dict[str, Any]:
        """A plain JSON-able dict (the cache's format)."""
        return {"valid": [[c.profile, c.seed, list(c.skip)] for c in self.valid],
                "rejected": list(self.rejected), "verification": self.verification.to_json(),
                "timing_max_size": self.timing_max_size}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> OriginalAnalysis:
        """The inverse of ``to_json``."""
        return cls(tuple(Case(int(p), int(s), tuple(int(n) for n in skip))
                         for p, s, skip in data["valid"]),
                   tuple(str(x) for x in data["rejected"]),
                   Verification.from_json(data["verification"]),
                   int(data.get("timing_max_size", 0)))


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
                    sizes: str | None = None, stop_ns: int = 0,
                    probe: bool = False) -> DriverRun:
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


async def analyse_original(job: Job, sanitized: bool) -> OriginalAnalysis | Failure:
    """Valid cases, mutation score and branch coverage of the original (cached)."""
    cache = cache_folder("verify")
    key = _analysis_key(job, sanitized)
    path = cache / f"{key}.json" if cache is not None else None
    if path is not None and path.is_file():
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            return OriginalAnalysis.from_json(json.loads(path.read_text(encoding="utf-8")))
    runs = _Runs(job, sanitized)
    job.ctx.report("validating", "checking that the generated inputs are valid for the original",
                   12)
    await gate_for_tests("validating", job.ctx)
    first = base_cases(job)
    extra = [Case(c.profile, c.seed + 1000 + k) for c in first[::job.tuning.seeds_per_profile]
             for k in range(job.tuning.search_seeds)] if job.tuning.mutants else []
    # The memory probe runs here too, on the original alone: a partner input the original
    # fails on makes that size invalid for the case, never a candidate's fault.
    run = await runs.check(first + extra, sides="A", case_ms=_case_ms(job, 5000), probe=True)
    valid: list[Case] = []
    rejected: list[str] = []
    skips: dict[tuple[int, int], list[int]] = {}
    per_case_s = run.proc.wall_s / max(len(first) + len(extra), 1)
    for event in run.events:
        case = _case_of(event)
        if event.get("event") == "invalid":
            skips.setdefault(case.key, []).append(int(event.get("size", -1)))
            rejected.append(f"the original {_why(event, job.workdir)} on {case.describe()}")
        elif event.get("event") == "case" and event.get("status") == "ok":
            valid.append(replace(case, skip=tuple(skips.get(case.key, ()))))
        elif event.get("event") == "case":
            rejected.append(f"the original {_why(event, job.workdir)} on {case.describe()}")
    first_keys = {c.key for c in first}
    valid_first = [c for c in valid if c.key in first_keys]
    valid_extra = [c for c in valid if c.key not in first_keys]
    if not valid_first:
        detail = rejected[0] if rejected else "the inputs could not be checked"
        return Failure("build-failed",
                       "Inputs could not be generated: the original itself fails on every "
                       f"generated input ({detail}). Write a bench spec with valid inputs "
                       "(docs/bench-spec.md).", "skipped", detail)
    mutants: tuple[Mutant, ...] = ()
    survivors: list[Mutant] = []
    notes: list[str] = []
    used = list(valid_first)
    if job.tuning.mutants:
        job.ctx.report("validating", "checking that the inputs catch mutants of the original", 15)
        mutant_ms = max(200, min(3000, int(per_case_s * 1000 * 30) + 100))
        mutants, survivors, note = await _mutation(job, valid_first, mutant_ms)
        if note:
            notes.append(note)
        if survivors and valid_extra:
            _, still, _ = await _mutation(job, valid_extra, mutant_ms, only=survivors)
            if len(still) < len(survivors):
                used += valid_extra
                survivors = [m for m in survivors if m in still]
    reach = await _timing_reach(runs, valid_first[0])
    if isinstance(reach, Failure):
        return reach
    branches: tuple[int, int] | None = None
    if job.tuning.coverage:
        branches = await _coverage(job, used)
    strong = [m for m in survivors if m.strong]
    weak = [m for m in survivors if not m.strong]
    verification = Verification(
        cases=len(used), rejected_cases=len(rejected),
        sizes=tuple(job.tuning.edge_sizes), mutants=len(mutants),
        killed=len(mutants) - len(survivors),
        survivors=tuple(f"line {m.line}: {m.description}" for m in strong + weak),
        strong_survivors=len(strong),
        branches=branches[0] if branches else None,
        branches_taken=branches[1] if branches else None,
        sanitizers=sanitized, notes=tuple(notes))
    analysis = OriginalAnalysis(tuple(used), tuple(rejected), verification, reach)
    if path is not None:
        with contextlib.suppress(OSError):
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(analysis.to_json()), encoding="utf-8")
            os.replace(tmp, path)
    return analysis


async def _timing_reach(runs: _Runs, case: Case) -> int | Failure:
    """The largest size (doubling from the smallest timing size) at which ``case`` and its
    partner (timing alternates the two) are valid for the original, scanning upwards until a
    call takes long enough to be timed.

    Inputs that are valid at small sizes can stop being valid as they grow (values that index
    a buffer whose size does not grow with them): timing past that point would run the
    original out of bounds and blame whatever crashed next.
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
    run = await runs.check([Case(case.profile, case.seed), partner(case)], sides="A",
                           case_ms=_case_ms(job, 30000), sizes=",".join(map(str, sizes)),
                           stop_ns=stop_ns)
    bad = [int(e.get("size", 0)) for e in run.events if e.get("event") == "invalid"]
    if not bad:
        return t.max_size
    fine = [s for s in sizes if s < min(bad)]
    if not fine:
        first = next(e for e in run.events if e.get("event") == "invalid")
        why = _why(first, job.workdir)
        return Failure("build-failed",
                       f"Inputs could not be generated at a size worth timing: the original "
                       f"{why} on {case.describe()}. Write a bench spec with valid inputs "
                       "(docs/bench-spec.md).", "skipped", f"original {why}")
    return max(fine)


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
                 str(t.coverage), job.site.qualified_name):
        h.update(part.encode() + b"\0")
    return h.hexdigest()


async def _mutation(job: Job, cases: list[Case], case_ms: int,
                    only: list[Mutant] | None = None
                    ) -> tuple[tuple[Mutant, ...], list[Mutant], str]:
    """All mutants, the survivors on ``cases``, and a note when no schemata could be built."""
    entry = job.units[0][len(job.site.unit_text):]
    name = f"unit_mut{job.tc.suffix}"
    built: Compiled | None = None
    mutants: tuple[Mutant, ...] = ()
    for level in LEVELS:
        sch = schemata(job.site, level)
        if not sch.mutants:
            return (), [], ""
        built = await compile_shared(job.sandbox, job.tc, job.workdir, "a", sch.unit_text + entry,
                                     name, timeout_s=job.settings.build_timeout_s, ctx=job.ctx,
                                     tag="_mut", cache=BuildCache.default()
                                     if job.tuning.build_cache else None,
                                     unprivileged=job.compile_as_nobody)
        if built.ok:
            mutants = sch.mutants
            break
    if built is None or not built.ok:
        return (), [], "mutation analysis skipped: no mutant of the original compiles"
    make_writable_for_runs(job.workdir, job.sandbox)
    targets = only if only is not None else list(mutants)
    args: dict[str, object] = {"sizes": _sizes(job), "cases": _cases_arg(cases),
                               "ids": ",".join(str(m.id) for m in targets), "case_ms": case_ms,
                               "seed": job.tuning.seed, "mem_mb": job.tuning.memory_mb}
    timeout = job.settings.run_timeout_s + len(targets) * case_ms / 1000
    run = await run_driver(job.sandbox, job.workdir, "mutants", args, env=job.env(1),
                           timeout_s=timeout, limits=job.limits(1), ctx=job.ctx,
                           libs=(LIB_A, built.output))
    status = {int(e["id"]): str(e.get("status")) for e in run.events
              if e.get("event") == "mutant"}
    survivors = [m for m in targets if status.get(m.id) == "ok"]
    if run.first("done") is None:
        # The run did not finish: mutants it did not reach count as surviving (unknown).
        survivors += [m for m in targets if m.id not in status]
    return mutants, survivors, ""


async def _coverage(job: Job, cases: list[Case]) -> tuple[int, int] | None:
    """(branches, branches taken) in the original function under ``cases``, via gcov."""
    gcov = shutil.which("gcov")
    if gcov is None or "clang" in Path(job.tc.cc).name:
        return None  # gcov reads GCC's coverage notes only
    built = await compile_shared(job.sandbox, job.tc, job.workdir, "a", job.units[0],
                                 f"unit{job.tc.suffix}", extra=("-O0", "--coverage"),
                                 timeout_s=job.settings.build_timeout_s, ctx=job.ctx,
                                 tag="_cov", unprivileged=job.compile_as_nobody)
    if not built.ok:
        return None
    make_writable_for_runs(job.workdir, job.sandbox)
    lib = built.output
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
    return branch_counts(res.stdout, f"unit{job.tc.suffix}", job.site.first_line,
                         job.site.last_line)


def branch_counts(gcov_json: str, unit_name: str, first: int, last: int) -> tuple[int, int] | None:
    """(branches, taken) on lines ``first``..``last`` of ``unit_name`` in gcov's JSON."""
    try:
        data = json.loads(gcov_json)
    except ValueError:
        return None
    total = taken = 0
    for f in data.get("files", []):
        if not str(f.get("file", "")).endswith(unit_name):
            continue
        for line in f.get("lines", []):
            if first <= int(line.get("line_number", 0)) <= last:
                for b in line.get("branches", []):
                    if b.get("throw"):
                        continue
                    total += 1
                    taken += 1 if int(b.get("count", 0)) > 0 else 0
    return (total, taken) if total else None


async def check_candidate(job: Job, analysis: OriginalAnalysis,
                          sanitized: bool) -> Failure | Verification:
    """Compare the candidate with the original on every valid case (and thread count)."""
    runs = _Runs(job, sanitized)
    threads = [1] + ([job.tuning.race_threads] if job.tc.openmp else [])
    for t in threads:
        job.ctx.report("validating", f"comparing outputs on {len(analysis.valid)} input cases"
                       + (f" at {t} threads" if t > 1 else ""), 25)
        await gate_for_tests("validating", job.ctx)
        run = await runs.check(analysis.valid, sides="AB", threads=t,
                               case_ms=_case_ms(job, 10000), probe=True)
        failed = verdicts.forged(run.forged) or _candidate_failure(job, run, t)
        if failed is not None:
            return failed
    races = ""
    if job.tc.openmp:
        races = (f"data races checked only by comparing outputs at 1 and "
                 f"{job.tuning.race_threads} threads (no race detector)")
    return replace(analysis.verification, races=races)


def _candidate_failure(job: Job, run: DriverRun, threads: int) -> Failure | None:
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
            detail = f"candidate {why} ({case.describe()}{at}); the original did not"
            word = "timeout" if status == "timeout" else "incorrect"
            return Failure(word, f"The {detail}.", "failed", detail)
        if status in ("crash", "sanitizer"):
            detail = f"the check stopped ({_why(event, job.workdir)}, {case.describe()}{at})"
            return Failure("incorrect", f"Validation failed: {detail}.", "failed", detail)
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
