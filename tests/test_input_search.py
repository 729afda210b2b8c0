"""The search for inputs reaching what the first inputs missed, over stand-in runs: which
cases it keeps, when it stops, and what its note says."""

from __future__ import annotations

from dataclasses import dataclass

from perfpilot.runner.coverage import Reach, read_gcov
from perfpilot.runner.input_search import SearchOutcome, search_inputs, search_profiles
from perfpilot.runner.mutants import Mutant

LINES = (10, 11, 12, 13, 14)


@dataclass(frozen=True)
class Case:
    profile: int
    seed: int


def _mutant(ident: int, line: int) -> Mutant:
    return Mutant(ident, "negate-condition", line, "condition negated")


class World:
    """Line 12 runs only on inputs of profile ``reaching`` (None: never); mutant 1 is told
    apart by the same inputs."""

    def __init__(self, reaching: int | None) -> None:
        self.reaching = reaching
        self.covered: set[int] = {10, 11, 13, 14}
        self.validated = 0

    async def validate(self, cases: list[Case]) -> list[Case]:
        self.validated += len(cases)
        return [c for c in cases if c.profile != 7]  # the original rejects profile 7

    async def cover(self, cases: list[Case]) -> Reach:
        if any(c.profile == self.reaching for c in cases):
            self.covered.add(12)
        return Reach(4, 3 + (12 in self.covered), LINES, frozenset(self.covered))

    async def kill(self, cases: list[Case], targets: tuple[Mutant, ...]) -> frozenset[int]:
        hit = any(c.profile == self.reaching for c in cases)
        return frozenset(m.id for m in targets if hit and m.line == 12)


async def _search(world: World, rounds: int = 4) -> SearchOutcome[Case] | None:
    start = Reach(4, 3, LINES, frozenset(world.covered))
    return await search_inputs(
        make_case=Case, seed=100, profiles=search_profiles(True), per_profile=1, rounds=rounds,
        seconds=60.0, reach=start, open_strong=(_mutant(1, 12),), validate=world.validate,
        cover=world.cover, kill=world.kill)


async def test_a_round_that_reaches_the_line_is_kept_and_the_search_stops() -> None:
    world = World(reaching=8)  # the constants profile reaches it
    found = await _search(world)
    assert found is not None
    assert found.killed == frozenset({1})
    assert found.reach.unreached == ()
    kept = found.kept
    assert kept and all(c.profile != 7 for c in kept)  # only cases the original accepts
    # One round was enough: nothing was left to reach after it.
    assert world.validated == len(search_profiles(True))
    assert "kept: they reached line 12 and told apart 1 surviving mutant(s)" in found.note


async def test_when_nothing_reaches_the_line_the_note_says_so() -> None:
    world = World(reaching=None)
    found = await _search(world, rounds=3)
    assert found is not None
    assert found.kept == () and found.killed == frozenset()
    assert world.validated == 3 * len(search_profiles(True))
    note = found.note
    assert "reached none of line 12" in note
    assert "told none of the surviving strong mutants apart" in note


async def test_nothing_to_search_for_is_no_search() -> None:
    world = World(reaching=8)
    found = await search_inputs(
        make_case=Case, seed=1, profiles=(0, 1), per_profile=1, rounds=3, seconds=60.0,
        reach=Reach(0, 0, LINES, frozenset(LINES)), open_strong=(), validate=world.validate,
        cover=world.cover, kill=world.kill)
    assert found is None and world.validated == 0


def test_the_constants_profile_comes_first_only_where_there_are_constants() -> None:
    assert search_profiles(True)[0] == 8
    assert 8 not in search_profiles(False)
    assert sorted(search_profiles(True)) == list(range(9))


def test_gcov_lines_give_the_unreached_ones() -> None:
    gcov = ('{"files": [{"file": "a/unit.cpp", "lines": ['
            '{"line_number": 3, "count": 5, "branches": [{"count": 5}, {"count": 0}]},'
            '{"line_number": 4, "count": 0, "branches": []},'
            '{"line_number": 5, "count": 5, "branches": []},'
            '{"line_number": 9, "count": 1, "branches": []}]}]}')
    reach = read_gcov(gcov, "unit.cpp", 2, 6)
    assert reach is not None
    assert reach.lines == (3, 4, 5) and reach.unreached == (4,)
    assert (reach.branches, reach.taken) == (2, 1)
    assert reach.grew(None) and not reach.grew(reach)
