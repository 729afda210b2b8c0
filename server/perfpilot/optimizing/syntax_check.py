"""Checking that a rewritten translation unit still compiles (``-fsyntax-only``)."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
from collections.abc import Sequence

from perfpilot.runner.compiler_warnings import check_flags, warning_lines

_MAX_ERROR_CHARS = 4000


def default_compiler(language: str) -> str:
    """The compiler used when none is configured: ``g++`` for C++, ``gcc`` for C."""
    return "gcc" if language == "c" else "g++"


def syntax_flags(language: str, flags: Sequence[str]) -> list[str]:
    """The unit's flags filtered for a syntax-only check read from stdin.

    Drops flags that only matter for output files or linking and adds a language standard
    when the unit's flags name none (so checks agree with the runner's default builds).
    """
    out: list[str] = []
    skip_next = False
    for flag in flags:
        if skip_next:
            skip_next = False
            continue
        if flag in ("-o", "-MF", "-MT", "-MQ", "-x"):
            skip_next = True
            continue
        if flag in ("-c", "-S", "-E", "-M", "-MM", "-MD", "-MMD", "-Werror") or \
                flag.startswith("-o"):
            continue
        out.append(flag)
    if not any(f.startswith("-std=") for f in out):
        out.append("-std=c11" if language == "c" else "-std=c++17")
    return out


async def syntax_check(unit_text: str, language: str, flags: Sequence[str],
                       compiler: str | None = None, timeout_s: float = 30) -> str | None:
    """Compile ``unit_text`` with ``-fsyntax-only``; None when it compiles, else the errors.

    The text goes to the compiler on stdin (``-x c``/``-x c++``), so quoted includes resolve
    against the working directory and the ``-I``/``-iquote`` flags given. A missing compiler
    or a timeout is reported as text, like a compile error.
    """
    error, _warnings = await compile_check(unit_text, language, flags, compiler, timeout_s,
                                           warnings=False)
    return error


async def compile_check(unit_text: str, language: str, flags: Sequence[str],
                        compiler: str | None = None, timeout_s: float = 30, *,
                        warnings: bool = True) -> tuple[str | None, tuple[str, ...]]:
    """``syntax_check`` that also reads the warnings (``-Wall -Wextra -Wshadow``, each without
    its place: ``runner.compiler_warnings``): ``(None, warnings)`` when the unit compiles,
    ``(errors, ())`` when not."""
    exe = compiler or default_compiler(language)
    path = shutil.which(exe)
    if path is None:
        return f"cannot check the rewrite: compiler '{exe}' was not found on PATH", ()
    wanted = check_flags(syntax_flags(language, flags)) if warnings else \
        syntax_flags(language, flags)
    args = [path, "-fsyntax-only", *wanted, "-x", "c" if language == "c" else "c++", "-"]
    try:
        proc = await asyncio.create_subprocess_exec(
            *args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT, start_new_session=True)
    except OSError as exc:
        return f"cannot check the rewrite: could not run '{exe}': {exc}", ()
    try:
        out, _ = await asyncio.wait_for(proc.communicate(unit_text.encode("utf-8")), timeout_s)
    except TimeoutError:
        return f"the syntax check with '{exe}' timed out after {timeout_s:g} s", ()
    finally:
        if proc.returncode is None:
            # timed out or cancelled: stop the compiler, then reap it
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            with contextlib.suppress(Exception):
                await proc.wait()
    text = out.decode("utf-8", "replace")
    if proc.returncode == 0:
        return None, warning_lines(text) if warnings else ()
    text = text.strip() or f"'{exe}' exited with {proc.returncode}"
    return text[:_MAX_ERROR_CHARS], ()
