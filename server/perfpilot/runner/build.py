"""Building both versions of the unit and the measurement driver, in parallel, sandboxed."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import re
import shutil
import uuid
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path

from perfpilot.progress import JobContext
from perfpilot.runner.sandbox import Limits, ProcResult, Sandbox, run_sandboxed
from perfpilot.runner.toolchain import (
    Toolchain,
    absolute_paths,
    compiler_folders,
    include_flags,
)

HEADERS = ("perfpilot_bench.hpp", "perfpilot_driver.hpp", "perfpilot_launcher.hpp")
_LOG_CAP = 6000


@dataclass(frozen=True)
class Compiled:
    """One compile: whether it produced its output, and the compiler's messages."""

    ok: bool
    output: str  # path relative to the work folder
    log: str
    timed_out: bool = False
    command: tuple[str, ...] = ()
    cached: bool = False


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "perfpilot"


def cache_folder(name: str) -> Path | None:
    """``$XDG_CACHE_HOME/perfpilot/<name>``, created private; None when it cannot be."""
    path = _cache_root() / name
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError:
        return None
    return path


@dataclass(frozen=True)
class BuildCache:
    """Build outputs keyed by everything that determines them (compiler, flags, sources).

    Every candidate of one function shares the original's build and the driver, so only the
    candidate is compiled per candidate. Entries are written atomically; the oldest are pruned.
    """

    root: Path
    max_entries: int = 256

    @classmethod
    def default(cls) -> BuildCache:
        """``$XDG_CACHE_HOME/perfpilot/builds`` (``~/.cache`` when unset)."""
        return cls(_cache_root() / "builds")

    def key(self, argv: list[str], workdir: Path, inputs: list[str]) -> str:
        """Hash of the command, the compiler binary's identity and the input files' bytes."""
        h = hashlib.sha256("\0".join(argv).encode())
        with contextlib.suppress(OSError):
            st = Path(argv[0]).stat()
            h.update(f"{st.st_size}:{st.st_mtime_ns}".encode())
        for name in inputs:
            h.update(b"\0" + name.encode() + b"\0")
            h.update((workdir / name).read_bytes())
        return h.hexdigest()

    def fetch(self, key: str, dest: Path) -> bool:
        """Copy a cached output to ``dest``; False when absent."""
        src = self.root / key
        try:
            shutil.copyfile(src, dest)
            os.chmod(dest, 0o755)
            os.utime(src)
        except OSError:
            return False
        return True

    def store(self, key: str, src: Path) -> None:
        """Keep a copy of a fresh output (errors are ignored: the cache is only a shortcut)."""
        with contextlib.suppress(OSError):
            self.root.mkdir(parents=True, exist_ok=True)
            tmp = self.root / f".{key}.{os.getpid()}.tmp"
            shutil.copyfile(src, tmp)
            os.replace(tmp, self.root / key)
            entries = sorted(self.root.iterdir(), key=lambda p: p.stat().st_mtime)
            for old in entries[: max(0, len(entries) - self.max_entries)]:
                old.unlink(missing_ok=True)


async def _cached_compile(sandbox: Sandbox, argv: list[str], workdir: Path, output: str,
                          side: str, inputs: list[str], *, timeout_s: float, ctx: JobContext,
                          ro_binds: list[str], cache: BuildCache | None,
                          unprivileged: bool) -> Compiled:
    key = cache.key(argv, workdir, inputs) if cache is not None else ""
    if cache is not None and cache.fetch(key, workdir / output):
        return Compiled(ok=True, output=output, log="", command=tuple(argv), cached=True)
    res = await run_sandboxed(sandbox, argv, workdir, timeout_s=timeout_s,
                              limits=Limits(cpu_s=int(timeout_s) + 5), ctx=ctx,
                              unprivileged=unprivileged, ro_binds=ro_binds)
    done = _compiled(res, workdir, output, side, argv)
    if done.ok and cache is not None:
        await asyncio.to_thread(cache.store, key, workdir / output)
    return done


def write_source(path: Path, text: str) -> None:
    """Write a source file that another build may be compiling at this moment.

    The timing and sanitized builds of one side start together and both write the same
    ``<side>/unit.cpp``: writing in place truncates it first, and a compiler that read it in
    that instant built an empty library (one with no measurement entry). An identical file
    is left alone, and a new text replaces the old in one rename, so a reader sees a whole
    file, old or new.
    """
    data = text.encode("utf-8")
    with contextlib.suppress(OSError):
        if path.read_bytes() == data:
            return
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _visible(tc: Toolchain) -> list[str]:
    """What a compile reads outside the work folder: include folders, the compilers' own."""
    return [*absolute_paths(tc.flags), *compiler_folders(tc)]


def install_headers(workdir: Path) -> Path:
    """Copy the driver and bench headers into the work folder (the sandbox may not see ours)."""
    dest = workdir / "include"
    dest.mkdir(exist_ok=True)
    package = resources.files("perfpilot.runner") / "include"
    for name in HEADERS:
        (dest / name).write_bytes((package / name).read_bytes())
    return dest


def tidy_log(text: str, prefix: str) -> str:
    """Compiler output with our folder names removed and its length capped."""
    text = re.sub(rf"(^|\s|\"){re.escape(prefix)}/", r"\1", text, flags=re.MULTILINE)
    if len(text) > _LOG_CAP:
        text = text[:_LOG_CAP] + "\n... (truncated)"
    return text.strip()


def first_error(log: str) -> str:
    """The first line that says 'error' (the one worth showing), else the first line."""
    for line in log.splitlines():
        if "error" in line.lower():
            return line.strip()
    return log.splitlines()[0].strip() if log.strip() else "compiler failed without output"


async def compile_shared(sandbox: Sandbox, tc: Toolchain, workdir: Path, side: str,
                         unit_text: str, unit_name: str, *, extra: tuple[str, ...] = (),
                         timeout_s: float, ctx: JobContext, tag: str = "",
                         cache: BuildCache | None = None,
                         unprivileged: bool = False) -> Compiled:
    """Compile one version of the unit into ``<side>/lib<side><tag>.so``."""
    folder = workdir / side
    folder.mkdir(exist_ok=True)
    write_source(folder / unit_name, unit_text)
    output = f"{side}/lib{side}{tag}.so"
    argv = [tc.cc, *tc.flags, *extra, "-fPIC", "-shared",
            *(["-fopenmp"] if tc.openmp else []), f"{side}/{unit_name}", "-o", output,
            "-Wl,--no-undefined", "-lm"]
    # Headers the unit includes are not hashed: no cache when the unit has quote includes.
    use = cache if '#include "' not in unit_text else None
    return await _cached_compile(sandbox, argv, workdir, output, side, [f"{side}/{unit_name}"],
                                 timeout_s=timeout_s, ctx=ctx,
                                 ro_binds=_visible(tc), cache=use,
                                 unprivileged=unprivileged)


# Bytes of padding placed before the unit's code in each layout copy. Code sections are
# 16-byte aligned, so these shift every function and loop to another offset within the 32- and
# 64-byte windows that branch prediction, the decoded-instruction cache and the JCC erratum
# care about; A's copy k and B's copy k get the same padding.
LAYOUT_PADS = (0, 16, 32, 48, 80, 112, 144, 176)


def layout_names(lib: str, copies: int) -> list[str]:
    """The library of each layout copy: ``lib`` itself, then ``lib`` with ``.k`` before
    ``.so``."""
    return [lib] + [lib.replace(".so", f".{k}.so") for k in range(1, max(copies, 1))]


async def compile_placed(sandbox: Sandbox, tc: Toolchain, workdir: Path, side: str,
                         unit_text: str, unit_name: str, *, copies: int, timeout_s: float,
                         ctx: JobContext, cache: BuildCache | None = None,
                         unprivileged: bool = False) -> Compiled:
    """Compile one version of the unit once, then link ``copies`` shared objects that differ
    only in where the code sits (padding linked in front of it), as ``layout_names`` says.

    Identical bytes at identical page offsets share one layout, and one layout can move a tight
    loop's speed by up to 2x: a ratio measured over several placements is about the code.
    """
    folder = workdir / side
    folder.mkdir(exist_ok=True)
    write_source(folder / unit_name, unit_text)
    obj = f"{side}/lib{side}.o"
    argv = [tc.cc, *tc.flags, "-fPIC", "-c", *(["-fopenmp"] if tc.openmp else []),
            f"{side}/{unit_name}", "-o", obj]
    use = cache if '#include "' not in unit_text else None
    built = await _cached_compile(sandbox, argv, workdir, obj, side, [f"{side}/{unit_name}"],
                                  timeout_s=timeout_s, ctx=ctx,
                                  ro_binds=_visible(tc), cache=use,
                                  unprivileged=unprivileged)
    if not built.ok:
        return built
    names = layout_names(f"{side}/lib{side}.so", min(copies, len(LAYOUT_PADS)))
    pads = await asyncio.gather(*(_pad_object(sandbox, tc, workdir, side, LAYOUT_PADS[k], ctx,
                                              unprivileged) for k in range(1, len(names))))
    links = await asyncio.gather(*(
        run_sandboxed(sandbox, [tc.cc, "-shared", *(["-fopenmp"] if tc.openmp else []),
                                *([pads[k - 1]] if k else []), obj, "-o", name,
                                "-Wl,--no-undefined", "-lm"],
                      workdir, timeout_s=timeout_s, limits=Limits(cpu_s=int(timeout_s) + 5),
                      ctx=ctx, unprivileged=unprivileged, ro_binds=_visible(tc))
        for k, name in enumerate(names)))
    for name, res in zip(names, links, strict=True):
        done = _compiled(res, workdir, name, side, [])
        if not done.ok:
            return replace(done, log=built.log + "\n" + done.log)
    return replace(built, output=names[0])


async def _pad_object(sandbox: Sandbox, tc: Toolchain, workdir: Path, side: str, size: int,
                      ctx: JobContext, unprivileged: bool) -> str:
    """An object whose code section is ``size`` bytes of padding."""
    name = f"{side}/pad{size}.o"
    source = workdir / side / f"pad{size}.s"
    write_source(source, f"\t.text\n\t.p2align 4\n\t.skip {size}, 0xcc\n"
                 '\t.section .note.GNU-stack,"",@progbits\n')
    await run_sandboxed(sandbox, [tc.cc, "-c", f"{side}/pad{size}.s", "-o", name], workdir,
                        timeout_s=30, limits=Limits(cpu_s=30), ctx=ctx,
                        unprivileged=unprivileged, ro_binds=_visible(tc))
    return name


# The build the capability policy reads (runner/object_policy.py): every function and variable
# in a section of its own, so that relocations say which function references what; machine code
# even when the project's flags ask for link-time optimisation.
CHECK_FLAGS = ("-ffunction-sections", "-fdata-sections", "-fno-lto")


def check_object_name(side: str) -> str:
    """Where ``compile_check_object`` puts one side's object, relative to the work folder."""
    return f"{side}/check.o"


async def compile_check_object(sandbox: Sandbox, tc: Toolchain, workdir: Path, side: str,
                               unit_text: str, unit_name: str, *, timeout_s: float,
                               ctx: JobContext, cache: BuildCache | None = None,
                               unprivileged: bool = False, pic: bool = True) -> Compiled:
    """Compile one version of the unit as the timed build does, plus ``CHECK_FLAGS``, into
    ``<side>/check.o`` for the object policy. A build of its own: the sections would change
    the timed code's layout. ``pic=False`` for whole programs."""
    folder = workdir / side
    folder.mkdir(exist_ok=True)
    write_source(folder / unit_name, unit_text)
    output = check_object_name(side)
    argv = [tc.cc, *tc.flags, *(["-fPIC"] if pic else []), "-c",
            *(["-fopenmp"] if tc.openmp else []), *CHECK_FLAGS, f"{side}/{unit_name}",
            "-o", output]
    use = cache if '#include "' not in unit_text else None
    return await _cached_compile(sandbox, argv, workdir, output, side, [f"{side}/{unit_name}"],
                                 timeout_s=timeout_s, ctx=ctx, ro_binds=_visible(tc),
                                 cache=use, unprivileged=unprivileged)


async def compile_driver(sandbox: Sandbox, tc: Toolchain, workdir: Path, bench_text: str,
                         *, timeout_s: float, ctx: JobContext, extra: tuple[str, ...] = (),
                         cache: BuildCache | None = None,
                         unprivileged: bool = False, output: str = "driver") -> Compiled:
    """Compile the bench (generated or from a spec) with the driver into ``output``."""
    source = f"{output}_main.cpp"
    write_source(workdir / source, bench_text + "\n#include <perfpilot_driver.hpp>\n")
    argv = [tc.cxx, "-O2", "-std=c++17", "-Iinclude", *include_flags(tc.flags), *extra,
            source, "-o", output, "-ldl"]
    inputs = [source, *(f"include/{h}" for h in HEADERS)]
    use = cache if '#include "' not in bench_text else None
    return await _cached_compile(sandbox, argv, workdir, output, "", inputs,
                                 timeout_s=timeout_s, ctx=ctx,
                                 ro_binds=_visible(tc), cache=use,
                                 unprivileged=unprivileged)


async def compile_program(sandbox: Sandbox, tc: Toolchain, workdir: Path, side: str,
                          unit_text: str, unit_name: str, *, timeout_s: float,
                          ctx: JobContext, cache: BuildCache | None = None,
                          unprivileged: bool = False) -> Compiled:
    """Compile a whole program into ``<side>/prog``."""
    folder = workdir / side
    folder.mkdir(exist_ok=True)
    write_source(folder / unit_name, unit_text)
    output = f"{side}/prog"
    argv = [tc.cc, *tc.flags, *(["-fopenmp"] if tc.openmp else []), f"{side}/{unit_name}",
            "-o", output, "-lm"]
    use = cache if '#include "' not in unit_text else None
    return await _cached_compile(sandbox, argv, workdir, output, side, [f"{side}/{unit_name}"],
                                 timeout_s=timeout_s, ctx=ctx, ro_binds=_visible(tc),
                                 cache=use, unprivileged=unprivileged)


async def compile_launcher(sandbox: Sandbox, tc: Toolchain, workdir: Path, *, timeout_s: float,
                           ctx: JobContext, cache: BuildCache | None = None,
                           unprivileged: bool = False) -> Compiled:
    """Compile the launcher that times two whole programs (ABBA, one process per run) into
    ``launcher``."""
    source = "launcher.cpp"
    write_source(workdir / source, "#include <perfpilot_launcher.hpp>\n")
    argv = [tc.cxx, "-O2", "-std=c++17", "-Iinclude", source, "-o", "launcher"]
    return await _cached_compile(sandbox, argv, workdir, "launcher", "",
                                 [source, *(f"include/{h}" for h in HEADERS)],
                                 timeout_s=timeout_s, ctx=ctx, ro_binds=_visible(tc),
                                 cache=cache, unprivileged=unprivileged)


def _compiled(res: ProcResult, workdir: Path, output: str, side: str,
              argv: list[str]) -> Compiled:
    log = tidy_log(res.stderr + res.stdout, side) if side else tidy_log(res.stderr + res.stdout,
                                                                         ".")
    ok = res.returncode == 0 and not res.timed_out and (workdir / output).is_file()
    if res.timed_out:
        log = (log + "\n" if log else "") + "compiler timed out"
    return Compiled(ok=ok, output=output, log=log, timed_out=res.timed_out, command=tuple(argv))


async def build_all(*jobs: asyncio.Future[Compiled] | asyncio.Task[Compiled]
                    ) -> list[Compiled]:
    """Wait for compiles started together (they run in parallel)."""
    return list(await asyncio.gather(*jobs))
