"""Compiling two units as the runner does for the object policy, and judging them (real
compiler, no sandbox: the tests' own sources)."""

from __future__ import annotations

import asyncio
import hashlib
import shutil
import tempfile
from pathlib import Path

from perfpilot.runner.build import CHECK_FLAGS
from perfpilot.runner.object_policy import ObjectViolation, object_violations

FOLDER = Path(tempfile.mkdtemp(prefix="pp-object-policy-"))


async def compile_object(unit: str, language: str = "cpp",
                         flags: tuple[str, ...] = (), openmp: bool = False,
                         pic: bool = True) -> Path:
    """``unit`` compiled with the runner's default flags plus ``CHECK_FLAGS`` (cached by
    text and flags for the session); raises with the compiler's message when it fails."""
    std = ("-O2", "-std=c11") if language == "c" else ("-O2", "-std=c++17")
    argv = [("gcc" if language == "c" else "g++"), *std, *flags, *(["-fPIC"] if pic else []),
            "-c", *(["-fopenmp"] if openmp else []), *CHECK_FLAGS]
    key = hashlib.sha256(("\0".join(argv) + "\0" + unit).encode()).hexdigest()[:20]
    source = FOLDER / f"{key}.{'c' if language == 'c' else 'cpp'}"
    output = FOLDER / f"{key}.o"
    if output.is_file():
        return output
    source.write_text(unit, encoding="utf-8")
    proc = await asyncio.create_subprocess_exec(
        *argv, str(source), "-o", str(output), stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT)
    out, _ = await proc.communicate()
    if proc.returncode != 0:
        raise AssertionError(f"does not compile: {out.decode(errors='replace')[:2000]}")
    return output


async def judge(original: str, candidate: str, *, entry: str = "perfpilot_entry",
                language: str = "cpp", flags: tuple[str, ...] = (), openmp: bool = False,
                state: bool = True) -> tuple[ObjectViolation, ...]:
    """The object policy's violations for ``candidate`` against ``original`` (whole units,
    entry included), both compiled side by side."""
    pic = entry != "main"
    a, b = await asyncio.gather(compile_object(original, language, flags, openmp, pic),
                                compile_object(candidate, language, flags, openmp, pic))
    return await object_violations(a, b, entry, state=state)


def described(found: tuple[ObjectViolation, ...]) -> str:
    """Every violation's clause, for assertion messages."""
    return " | ".join(v.describe() for v in found) or "(none)"


def have_compilers() -> bool:
    """Whether g++, gcc and binutils' objdump and c++filt are here."""
    return all(shutil.which(t) for t in ("g++", "gcc", "objdump", "c++filt"))
