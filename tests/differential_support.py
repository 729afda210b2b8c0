"""Differential checks for rewrite rules: rewrite many generated variants of a pattern, build
the original and the rewritten program with g++, run both and compare what they print.

A variant is a function (plus any helpers it needs, before it) and a driver snippet that calls
it and prints results with ``printf``; every variant's names must be unique in the batch.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.code.splice import splice
from perfpilot.optimizing.builtin import rewrite
from perfpilot.planning.builtin import analyze_site
from perfpilot.rules.registry import Phase
from perfpilot.rules.rewriting import RewriteResult

HEADERS = """#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <string>
#include <unordered_map>
#include <vector>
"""

HAVE_GXX = shutil.which("g++") is not None
# ``make test-deep`` runs every generated variant; ``make test`` an even sample of them.
DEEP = os.environ.get("PERFPILOT_TEST_DEEP") == "1"
_SAMPLE_MIN = 12


@dataclass(frozen=True)
class Variant:
    """One generated function, its name, and a driver snippet printing what it computes."""

    name: str
    code: str
    driver: str
    rel: float = 0.0  # this variant's own relative tolerance (float arithmetic), when larger


def rewrite_all(variants: Sequence[Variant], rules: frozenset[str],
                extra_phases: tuple[Phase, ...] = (),
                ) -> tuple[str, str, dict[str, RewriteResult]]:
    """The original unit, the unit with every variant rewritten under ``rules`` (with
    ``extra_phases``, such as the last-bit rewrites a plan may allow), and the results."""
    unit = HEADERS + "\n".join(v.code for v in variants) + "\n"
    results: dict[str, RewriteResult] = {}
    sites = []
    for v in variants:
        site = function_by_name(unit, "cpp", v.name)
        res = rewrite(site, rules, extra_phases)
        results[v.name] = res
        sites.append((site, res.code))
    new_unit = unit
    for site, code in sorted(sites, key=lambda sc: sc[0].start_byte, reverse=True):
        new_unit = splice(site.__class__(**{**site.__dict__, "unit_text": new_unit}), code)
    return unit, new_unit, results


def rewrite_function(unit: str, rules: frozenset[str], name: str = "f") -> RewriteResult:
    """``rules``' rewrite of the C++ function ``name`` in ``unit``."""
    return rewrite(function_by_name(unit, "cpp", name), rules)


def rewritten_code(unit: str, rules: frozenset[str], name: str = "f") -> str:
    """The text of ``rules``' rewrite of the C++ function ``name`` in ``unit``, or "" when
    none of them applied."""
    res = rewrite_function(unit, rules, name)
    return res.code if res.changed else ""


def finding_rules(unit: str, name: str = "f") -> list[str]:
    """The rules the built-in analysis reports on the C++ function ``name`` in ``unit``."""
    return [f.rule for f in analyze_site(function_by_name(unit, "cpp", name)).findings]


# What each program built so far in this process printed, by everything that determines it
# (standard, unit, drivers): a rule's checks of deliberately wrong rewrites all build the same
# original, and a full comparison under ``make test-deep`` builds it once more; one build serves
# them all (a whole test file runs on one worker).
_PRINTED: dict[str, list[str]] = {}


def _run(unit: str, drivers: str, folder: Path, tag: str, std: str) -> list[str]:
    key = hashlib.sha256(f"{std}\0{unit}\0{drivers}".encode()).hexdigest()
    if key in _PRINTED:
        return list(_PRINTED[key])
    src = folder / f"{tag}.cpp"
    src.write_text(unit + "\nint main() {\n" + drivers + "\n    return 0;\n}\n")
    exe = folder / tag
    comp = subprocess.run(["g++", f"-std={std}", "-O1", "-o", str(exe), str(src)],
                          capture_output=True, text=True, timeout=300)
    assert comp.returncode == 0, comp.stderr[:4000] + "\n" + src.read_text()[:20000]
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    _PRINTED[key] = run.stdout.splitlines()
    return list(_PRINTED[key])


def build_and_run(unit: str, variants: Sequence[Variant], folder: Path, tag: str,
                  std: str = "c++17") -> list[str]:
    """What ``unit`` prints (every line) with a ``main`` running each variant's driver, built
    as ``std``; a build or a run that fails fails the test. A program built before in this
    process is not built again."""
    drivers = "\n".join(f"    {{ std::printf(\"== {v.name}\\n\"); {v.driver} }}"
                        for v in variants)
    return _run(unit, drivers, folder, tag, std)


def _same(a: str, b: str, rel: float) -> bool:
    if a == b:
        return True
    ta, tb = a.split(), b.split()
    if len(ta) != len(tb) or rel == 0.0:
        return False
    for x, y in zip(ta, tb, strict=True):
        if x == y:
            continue
        try:
            fx, fy = float(x), float(y)
        except ValueError:
            return False
        if abs(fx - fy) > rel * max(1.0, abs(fx), abs(fy)):
            return False
    return True


def sample(variants: Sequence[Variant]) -> list[Variant]:
    """The variants a differential build runs: all of them under ``make test-deep``
    (``PERFPILOT_TEST_DEEP=1``), else an evenly spread quarter (at least ``_SAMPLE_MIN``, the
    first and the last always among them). Building and running is the sweep's cost; the
    rewrite itself still runs on every variant."""
    if DEEP or len(variants) <= _SAMPLE_MIN:
        return list(variants)
    k = max(_SAMPLE_MIN, len(variants) // 4)
    picks = sorted({round(i * (len(variants) - 1) / (k - 1)) for i in range(k)})
    return [variants[i] for i in picks]


def compare(variants: Sequence[Variant], rules: frozenset[str], folder: Path,
            rel: float = 0.0, extra_phases: tuple[Phase, ...] = (),
            std: str = "c++17", *, sampled: bool = True) -> dict[str, RewriteResult]:
    """Rewrite every variant; build (as ``std``) and run them both ways (a ``sample`` of them
    unless ``sampled`` is false); assert each printed line agrees (exactly, or within ``rel``
    relative error per number). Returns the rewrite results of every variant."""
    _, _, results = rewrite_all(variants, rules, extra_phases)
    if sampled:
        variants = sample(variants)
    unit, new_unit, _ = rewrite_all(variants, rules, extra_phases)
    before = build_and_run(unit, variants, folder, "orig", std)
    after = build_and_run(new_unit, variants, folder, "opt", std)
    assert len(before) == len(after), (before[-5:], after[-5:])
    tolerance = {v.name: max(rel, v.rel) for v in variants}
    bad = []
    current = rel
    for x, y in zip(before, after, strict=True):
        if x.startswith("== "):
            current = tolerance.get(x[3:], rel)
        if not _same(x, y, current):
            bad.append((x, y))
    assert not bad, bad[:10]
    return results


def compare_rewritten(variants: Sequence[Variant], rules: frozenset[str],
                      folder: Path) -> dict[str, RewriteResult]:
    """``compare``, asserting too that exactly ``rules`` rewrote every variant."""
    results = compare(variants, rules, folder)
    for v in variants:
        res = results[v.name]
        assert res.rules == rules, (v.code, res.notes)
    return results


# How ``compare`` reports printed lines that differ: the list of (before, after) pairs.
_DIFFERING = re.compile(r"\[\(")


def assert_outputs_differ(variants: Sequence[Variant], rules: frozenset[str],
                          folder: Path) -> None:
    """The comparison must fail on printed lines that differ: the differential test catches
    a rewrite made wrong on purpose.

    Under ``make test`` the sample the differential test runs is tried first: each variant
    prints its own lines, so lines that differ there differ in the whole set too. Only when the
    sample shows no difference is the whole set built (and always under ``make test-deep``).
    """
    if not DEEP:
        try:
            compare(variants, rules, folder)
        except AssertionError as failed:
            if _DIFFERING.search(str(failed)):
                return
    with pytest.raises(AssertionError, match=_DIFFERING.pattern):
        compare(variants, rules, folder, sampled=False)


def assert_breaking_changes_output(variants: Sequence[Variant], rules: frozenset[str],
                                   folder: Path, breaks: Callable[[str], str]) -> None:
    """``breaks`` (an edit of the rewritten unit that makes the rewrites wrong) must change what
    the program prints. Under ``make test`` the sample the differential test runs is tried
    first (its original is already built); the whole set only when the sample shows no change."""
    sets = [list(variants)] if DEEP else [sample(variants), list(variants)]
    for chosen in sets:
        unit, new_unit, _ = rewrite_all(chosen, rules)
        broken = breaks(new_unit)
        if broken == new_unit:
            continue
        if build_and_run(unit, chosen, folder, "orig") != build_and_run(broken, chosen, folder,
                                                                       "broken"):
            return
    raise AssertionError("the broken rewrite printed what the original printed")
