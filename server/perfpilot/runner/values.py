"""Values the runner produces: a timing measurement and the verdict on one candidate."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

# ``no-input``: a whole program with no stdin file that has content; it was not timed.
# ``rejected``: never built, refused by the capability policy or for want of a sandbox.
# ``suspicious``: validated and timed, but the clock claimed more than ten times the gain the
# instruction counts show (timing tampered with, or answered from memory): no figure, never
# applied.
# ``needs-spec``: the generated harness cannot feed the function (a parameter it cannot build,
# inputs the original fails on, a harness that does not compile): nothing about the candidate
# was learned; a bench spec (which can be drafted) is what it needs. ``build-failed`` is the
# candidate not compiling (or the original not building on its own).
VerdictWord = Literal["faster", "weakly-verified", "slower", "no-change", "incorrect",
                      "build-failed", "needs-spec", "timeout", "noisy", "suspicious", "no-input",
                      "rejected"]
VERDICTS: tuple[str, ...] = ("faster", "weakly-verified", "slower", "no-change", "incorrect",
                             "build-failed", "needs-spec", "timeout", "noisy", "suspicious",
                             "no-input", "rejected")
# "weak": outputs agreed, but the inputs did not tell the original from all of its mutants.
ValidationStatus = Literal["passed", "weak", "failed", "skipped"]
InputMode = Literal["harness", "spec", "stdin"]


@dataclass(frozen=True)
class Verification:
    """How strongly the inputs checked the candidate (what the verdict's *correct* rests on).

    ``cases`` input cases (a value profile and a seed, each at every validation size) were
    valid for the original; ``rejected_cases`` were not (the original crashed or had undefined
    behaviour on them). Of ``mutants`` simple mutants of the original the inputs told ``killed``
    apart (their outputs differed); ``undecided`` neither agreed nor differed (the run timed
    out or crashed outside the mutant's own call); ``survivors`` describe the rest and the
    undecided ones, strong ones (untested behaviour) first. ``blind``: the bench recorded no
    output at all, so no input could tell two versions of the function apart. ``beyond``: the
    check past the timed size (``outputs also agree at size 16384, 4x the timed size``).
    ``lines`` executable lines of the original function, ``unreached`` those no valid input
    ran (gcov; None without coverage). ``search``: what the search for inputs reaching untested
    code did (``24 more cases tried in 3.1 s, 4 kept``), empty when it did not run.
    """

    cases: int = 0
    rejected_cases: int = 0
    sizes: tuple[int, ...] = ()
    mutants: int = 0
    killed: int = 0
    survivors: tuple[str, ...] = ()
    strong_survivors: int = 0
    branches: int | None = None
    branches_taken: int | None = None
    sanitizers: bool = False
    races: str = ""  # how data races were checked, for parallel candidates
    notes: tuple[str, ...] = ()
    undecided: int = 0
    blind: bool = False
    beyond: str = ""
    lines: int | None = None
    unreached: tuple[int, ...] = ()
    search: str = ""

    @property
    def weak(self) -> bool:
        """Whether some behaviour of the original went untested (a strong mutant survived or
        was not decided), or nothing was compared at all."""
        return self.strong_survivors > 0 or self.blind

    def untested(self, limit: int = 3) -> str:
        """What went untested, for the verdict: the first ``limit`` strong survivors, or why
        nothing was."""
        if self.blind:
            return "every output (the bench records none)"
        return "; ".join(self.survivors[:self.strong_survivors][:limit])

    def reach(self) -> str:
        """``2 of 31 lines never reached: 18, 22`` (empty when every line was reached or
        coverage was not measured)."""
        if not self.lines or not self.unreached:
            return ""
        shown = ", ".join(str(n) for n in self.unreached[:8])
        more = ", ..." if len(self.unreached) > 8 else ""
        return f"{len(self.unreached)} of {self.lines} lines never reached: {shown}{more}"

    def weakness(self) -> str:
        """Why a faster candidate is only weakly verified, as a clause."""
        if self.blind:
            return ("the bench records no output, so no input could tell the candidate from "
                    "the original")
        reach = self.reach()
        return f"the inputs never exercised {self.untested()}" + (f" ({reach})" if reach else "")

    @property
    def inputs(self) -> int:
        """Input sets each side was called on."""
        return self.cases * max(len(self.sizes), 1)

    def phrase(self) -> str:
        """``48 inputs, 11/12 mutants killed, 9/10 branches, sanitizers`` (one short phrase)."""
        parts = [f"{self.inputs} inputs"]
        if self.blind:
            parts.append("no output recorded to compare")
        elif self.mutants:
            parts.append(f"{self.killed}/{self.mutants} mutants killed"
                         + (f", {self.undecided} not decided" if self.undecided else ""))
        if self.branches:
            parts.append(f"{self.branches_taken}/{self.branches} branches")
        if self.lines:
            parts.append(f"{self.lines - len(self.unreached)}/{self.lines} lines")
        if self.sanitizers:
            parts.append("ASan+UBSan clean")
        return ", ".join(parts)

    def to_json(self) -> dict[str, Any]:
        """A plain JSON-able dict."""
        return {"cases": self.cases, "rejected_cases": self.rejected_cases,
                "sizes": list(self.sizes), "inputs": self.inputs, "mutants": self.mutants,
                "killed": self.killed, "survivors": list(self.survivors),
                "strong_survivors": self.strong_survivors, "branches": self.branches,
                "branches_taken": self.branches_taken, "sanitizers": self.sanitizers,
                "races": self.races, "notes": list(self.notes), "weak": self.weak,
                "undecided": self.undecided, "blind": self.blind, "beyond": self.beyond,
                "lines": self.lines, "unreached": list(self.unreached), "search": self.search,
                "phrase": self.phrase()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Verification:
        """The inverse of ``to_json``."""
        return cls(cases=int(data.get("cases", 0)),
                   rejected_cases=int(data.get("rejected_cases", 0)),
                   sizes=tuple(int(x) for x in data.get("sizes", ())),
                   mutants=int(data.get("mutants", 0)), killed=int(data.get("killed", 0)),
                   survivors=tuple(str(x) for x in data.get("survivors", ())),
                   strong_survivors=int(data.get("strong_survivors", 0)),
                   branches=data.get("branches"), branches_taken=data.get("branches_taken"),
                   sanitizers=bool(data.get("sanitizers", False)),
                   races=str(data.get("races", "")),
                   notes=tuple(str(x) for x in data.get("notes", ())),
                   undecided=int(data.get("undecided", 0)),
                   blind=bool(data.get("blind", False)), beyond=str(data.get("beyond", "")),
                   lines=data.get("lines"),
                   unreached=tuple(int(x) for x in data.get("unreached", ())),
                   search=str(data.get("search", "")))


@dataclass(frozen=True)
class Measurement:
    """One paired timing run at a fixed thread count.

    ``speedup`` is the median over clean pairs of (time of original / time of candidate), so
    values above 1 mean the candidate is faster. ``psi`` is the CPU pressure ("some avg10", in
    percent) read before the run, or None where the kernel does not expose it.
    """

    speedup: float
    ci95_low: float
    ci95_high: float
    pairs: int
    dropped_pairs: int
    threads: int
    median_a_s: float
    median_b_s: float
    psi: float | None = None
    notes: tuple[str, ...] = ()
    size: int = 0
    reps: int = 1
    wanted_pairs: int = 0  # clean pairs asked for (0: all pairs taken)
    basis: str = "wall"  # "cpu": too few clean pairs, serial figures from CPU time
    # Why the figure is not trusted although its pairs looked clean (a sentence), or "".
    withheld: str = ""

    @property
    def ci95(self) -> tuple[float, float]:
        """The 95% bootstrap interval of the speedup."""
        return (self.ci95_low, self.ci95_high)

    @property
    def clean(self) -> bool:
        """Whether at least half of the wanted pairs (and 3) ran without contention."""
        kept = self.pairs - self.dropped_pairs
        return kept >= 3 and kept * 2 >= (self.wanted_pairs or self.pairs)


@dataclass(frozen=True)
class Tuning:
    """Knobs of the measurement procedure that are not user settings (tests lower them)."""

    target_sample_s: float = 0.002  # each timed sample lasts at least this long
    min_size: int = 16
    max_size: int = 1 << 20
    edge_sizes: tuple[int, ...] = (0, 1, 2, 7, 33, 100)
    # Value profiles (see perfpilot_bench.hpp: natural, signed, small, sorted, wide, extreme,
    # special, aliased, constants) and seeds of each: every pair is one input case, validated
    # at every edge size. The constants profile runs only where the code has constants.
    profiles: tuple[int, ...] = (0, 1, 2, 3, 4, 5, 6, 7, 8)
    seeds_per_profile: int = 2
    # More seeds per profile, tried against mutants that the first inputs did not kill.
    search_seeds: int = 6
    # Mutation analysis and branch coverage of the original (cached per original and inputs).
    mutants: bool = True
    coverage: bool = True
    # Build both sides with AddressSanitizer and UndefinedBehaviorSanitizer for validation.
    sanitizers: bool = True
    # Parallel candidates are also validated at this many threads (races show as mismatches).
    race_threads: int = 4
    warmup: int = 2
    seed: int = 12345
    bootstrap: int = 2000
    no_change_band: float = 0.03  # |speedup - 1| below this is no measurable change
    wait_fraction: float = 0.02  # a call that waited longer than this share of its wall time
    max_pairs_factor: int = 4  # take up to this many times the wanted pairs to get clean ones
    cpu_fallback: bool = True  # serial code on a busy machine: judge by CPU time, say so
    noisy_retries: int = 1  # time again once when the first run was too contended
    count_target_s: float = 0.002  # native time of the counted call under callgrind
    count_limit_s: float = 20.0  # counting is skipped when one call would take longer there
    budget_s: float = 30.0  # time limit of one timing run inside the driver
    memory_mb: int = 4096  # address-space limit of sandboxed runs
    program_pairs: int = 10  # pairs for whole programs (each costs two process starts)
    # A multi-thread run during which some task waited for a CPU this share of the time or
    # more is not trusted: another process held the cores the threads needed.
    parallel_pressure_gate: float = 25.0
    # Likewise when the hypervisor ran other guests on our virtual CPUs ("steal") for this share
    # of the CPUs' time: a thread that is not running holds up every barrier of the others.
    parallel_steal_gate: float = 5.0
    # Copies of each side's library the timing loop rotates through, so that no single code
    # layout decides the ratio (see driver_run.layout_copies). Eight same-code runs each: with
    # one copy a side 0.988-1.045 (one wrong "faster"), with four 0.989-1.011.
    layout_copies: int = 4
    # Reuse builds of identical sources (the original, the driver): a verdict in 0.2 s instead
    # of 2.3 s when only the candidate is new. Safe with layout copies; with a single copy a
    # reused build made one fixed layout of the original face fresh ones, and widened the
    # same-code spread.
    build_cache: bool = True
    # Refuse candidates the capability policy rejects before building them. Off only in tests
    # that check what the sandbox alone contains.
    capability_policy: bool = True
    # After timing, outputs are compared once more past the timed size: up to this many times
    # it, but only as far as one call of the original (sanitized) takes at most beyond_budget_s.
    beyond_factor: int = 4
    beyond_budget_s: float = 2.0
    # The study scans the original's call time over the validation sizes first: a size at which
    # one (sanitized) call takes longer than this is dropped with every larger one, and the
    # largest scanned size below it validates instead (an exponential original at size 100
    # would otherwise wait out the time limit on every input case).
    edge_call_s: float = 0.05
    # A candidate is stopped once it runs this many times the original's time on the same
    # inputs (and past the floor: one timed call, or one validation case in its own process).
    cutoff_factor: int = 20
    cutoff_floor_s: float = 0.25
    case_floor_s: float = 3.0
    # The search for inputs that reach lines no input ran or tell surviving strong mutants
    # apart: at most this long, over at most this many rounds (one case of every profile each).
    search_budget_s: float = 4.0
    search_rounds: int = 6


@dataclass(frozen=True)
class Verdict:
    """The runner's verdict on one candidate, with the evidence behind it."""

    verdict: str
    message: str
    speedup: float | None = None
    ci95: tuple[float, float] | None = None
    threads: int = 1
    serial_speedup: float | None = None
    serial_ci95: tuple[float, float] | None = None
    instructions_ratio: float | None = None
    validation_status: str = "skipped"
    validation_detail: str = ""
    pairs: int = 0
    dropped_pairs: int = 0
    flags: tuple[str, ...] = ()
    compiler: str = ""
    median_a_s: float | None = None
    median_b_s: float | None = None
    build_log: str = ""
    input_mode: str = "harness"
    psi: float | None = None
    sandbox: str = ""
    notes: tuple[str, ...] = ()
    measurement: Measurement | None = None
    serial_measurement: Measurement | None = None
    verification: Verification | None = None
    # Flags the measurement added to the project's build (``-fopenmp``), and the speedup
    # measured with both sides built without them: what the user's build gets today.
    added_flags: tuple[str, ...] = ()
    without_added_speedup: float | None = None
    without_added_ci95: tuple[float, float] | None = None
    # The generated harness cannot feed the function: a bench spec is needed (and can be
    # drafted), rather than a fix to the candidate.
    needs_spec: bool = False

    def to_json(self) -> dict[str, Any]:
        """A plain JSON-able dict (the shape the CLI prints and the editor receives)."""
        return {
            "verdict": self.verdict,
            "speedup": self.speedup,
            "ci95": list(self.ci95) if self.ci95 is not None else None,
            "threads": self.threads,
            "serial_speedup": self.serial_speedup,
            "serial_ci95": list(self.serial_ci95) if self.serial_ci95 is not None else None,
            "instructions_ratio": self.instructions_ratio,
            "validation": {"status": self.validation_status, "detail": self.validation_detail},
            "pairs": self.pairs,
            "dropped_pairs": self.dropped_pairs,
            "flags": list(self.flags),
            "compiler": self.compiler,
            "median_a_s": self.median_a_s,
            "median_b_s": self.median_b_s,
            "message": self.message,
            "input_mode": self.input_mode,
            "psi": self.psi,
            "sandbox": self.sandbox,
            "notes": list(self.notes),
            "basis": self.measurement.basis if self.measurement is not None else None,
            "build_log": self.build_log,
            "verification": (self.verification.to_json() if self.verification is not None
                             else None),
            "added_flags": list(self.added_flags),
            "without_added_speedup": self.without_added_speedup,
            "without_added_ci95": (list(self.without_added_ci95)
                                   if self.without_added_ci95 is not None else None),
            "needs_spec": self.needs_spec,
        }
