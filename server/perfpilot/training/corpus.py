"""A generated corpus of training tasks: slow functions with known faster rewrites.

Each family of ``families.py`` is instantiated over names, element types, loop shapes and size
constants; every instance is a whole translation unit the runner's generated harness can feed,
plus the known fast function. The split is by family: one family of every category is held out,
so no template a held-out task came from is ever seen in training.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from string import Template

from perfpilot.code.locate import function_by_name
from perfpilot.code.site import FunctionSite
from perfpilot.strategy.categories import category_by_id
from perfpilot.training.families import FAMILIES, Family

VERBS = ("sum", "total", "score", "measure", "tally", "reduce", "digest", "scan", "fold",
         "weigh")
NOUNS = ("values", "samples", "items", "readings", "weights", "counts", "cells", "rows",
         "entries", "points")
CONTAINERS = (("v", "w"), ("data", "other"), ("xs", "ys"), ("vals", "keys"), ("arr", "probe"),
              ("items", "more"))
INDICES = ("i", "k", "idx")
SIZES = ("8", "16", "32", "64", "128")
LOOPS = (
    "for (std::size_t $i = 0; $i < $v.size(); ++$i)",
    "for (std::size_t $i = 0; $i != $v.size(); $i++)",
    "for (std::size_t $i = 0, end_ = $v.size(); $i < end_; ++$i)",
)
# Per category, the family kept out of training (the second of each pair).
HELD_OUT: frozenset[str] = frozenset(
    [f.name for f in FAMILIES if [g.category for g in FAMILIES].index(f.category)
     != FAMILIES.index(f)])


@dataclass(frozen=True)
class CorpusTask:
    """One generated task: the slow unit, the function's name, its known fast version."""

    family: str
    category: int
    name: str
    unit: str
    fast: str
    split: str  # "train" or "heldout"
    openmp: bool
    explanation: str

    @property
    def key(self) -> str:
        """A short stable id (hash of the unit)."""
        return hashlib.sha256(self.unit.encode()).hexdigest()[:12]

    def site(self, uri: str = "") -> FunctionSite:
        """The slow function, located in its unit."""
        return function_by_name(self.unit, "cpp", self.name, uri=uri)

    def fast_unit(self) -> str:
        """The unit with the fast function in place of the slow one (and its includes)."""
        head = "".join(f"#include <{h}>\n" for h in self._fast_includes())
        site = self.site()
        data = self.unit.encode()
        return head + (data[:site.start_byte].decode() + self.fast
                       + data[site.end_byte:].decode())

    def _fast_includes(self) -> tuple[str, ...]:
        fam = family(self.family)
        return tuple(h for h in fam.fast_includes if f"<{h}>" not in self.unit)


def family(name: str) -> Family:
    """The family called ``name``."""
    for f in FAMILIES:
        if f.name == name:
            return f
    raise KeyError(name)


def _instances(fam: Family) -> Iterator[dict[str, str]]:
    loops = LOOPS if fam.loops else LOOPS[:1]
    sizes = SIZES if "$K" in fam.slow else SIZES[:1]
    for verb, noun, (v, w), i, t, loop, k in itertools.product(
            VERBS, NOUNS, CONTAINERS, INDICES, fam.types, loops, sizes):
        yield {"fn": f"{verb}_{noun}", "v": v, "w": w, "i": i, "T": t,
               "LOOP": Template(loop).substitute(i=i, v=v), "K": k}


def _render(fam: Family, params: dict[str, str]) -> CorpusTask:
    includes = "".join(f"#include <{h}>\n" for h in fam.includes)
    helper = Template(fam.helper).substitute(params) + "\n\n" if fam.helper else ""
    slow = Template(fam.slow).substitute(params)
    fast = Template(fam.fast).substitute(params)
    unit = f"{includes}\n{helper}{slow}\n"
    return CorpusTask(fam.name, fam.category, params["fn"], unit, fast + "\n",
                      "heldout" if fam.name in HELD_OUT else "train", fam.openmp,
                      fam.explanation)


def generate(per_family: int = 120, seed: int = 0, split: str | None = None,
             families: tuple[str, ...] = ()) -> list[CorpusTask]:
    """Up to ``per_family`` distinct tasks of each family (``split`` keeps one split only).

    Instances are spread over the whole parameter space by a seeded stride, so a small
    ``per_family`` still varies names, types and loop shapes.
    """
    out: list[CorpusTask] = []
    for fam in FAMILIES:
        if families and fam.name not in families:
            continue
        if split is not None and ("heldout" if fam.name in HELD_OUT else "train") != split:
            continue
        space = list(_instances(fam))
        step = max(1, len(space) // max(per_family, 1))
        offset = (seed * 7919) % step if step > 1 else 0
        seen: set[str] = set()
        for params in space[offset::step]:
            task = _render(fam, params)
            if task.unit in seen:
                continue
            seen.add(task.unit)
            out.append(task)
            if len(seen) >= per_family:
                break
    return out


def label(task: CorpusTask) -> str:
    """The category name of the task's known strategy."""
    return category_by_id(task.category).name


def write_tasks(tasks: list[CorpusTask], root: Path) -> list[Path]:
    """Write tasks as ``perfpilot eval`` task folders (``task.toml``, the slow unit, the fast
    unit as the reference, the template's category as the label)."""
    out: list[Path] = []
    for t in tasks:
        folder = root / f"{t.family}-{t.key}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "slow.cpp").write_text(t.unit, encoding="utf-8")
        (folder / "fast.cpp").write_text(t.fast_unit(), encoding="utf-8")
        (folder / "task.toml").write_text(
            f'source = "slow.cpp"\nfunction = "{t.name}"\ninput = "harness"\n'
            f'labels = ["{label(t)}"]\nopenmp = {"true" if t.openmp else "false"}\n'
            f'reference = "fast.cpp"\ndescription = "generated: {t.family} ({t.split})"\n',
            encoding="utf-8")
        out.append(folder)
    return out
