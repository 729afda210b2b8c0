"""Choosing the compiler and the flags both builds share."""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from perfpilot.code.site import Language
from perfpilot.runner.compdb import CompileFlags
from perfpilot.settings import RunnerSettings

if TYPE_CHECKING:
    from perfpilot.runner.measurement_inputs import MeasurementInputs

_C_OF = {"g++": "gcc", "clang++": "clang", "c++": "cc"}
_CXX_OF = {v: k for k, v in _C_OF.items()}
_OMP = re.compile(r"#\s*pragma\s+omp\b")
# An OpenMP pragma that needs the runtime: anything but ``simd`` and ``declare simd``, which
# ``-fopenmp-simd`` honours without it.
_OMP_RUNTIME = re.compile(r"#\s*pragma\s+omp\s+(?!simd\b|declare\s+simd\b)")
# Flags that only make sense for one translation unit's own build, never for ours.
_DROP_FOR_SO = ("-fPIE", "-fpie", "-pie", "-static", "-fno-pic", "-fno-PIC")


class ToolchainError(Exception):
    """No usable compiler (the message says which one was missing)."""


@dataclass(frozen=True)
class Toolchain:
    """How both builds are compiled: the same compiler and the same flags for A and B."""

    cc: str  # compiler for the unit (C or C++)
    cxx: str  # C++ compiler for the driver
    cc_name: str
    language: Language
    flags: tuple[str, ...]
    flags_source: str  # compile_commands.json path, "settings" or "defaults"
    openmp: bool

    @property
    def build_flags(self) -> tuple[str, ...]:
        """The flags both builds really get (OpenMP included)."""
        return (*self.flags, "-fopenmp") if self.openmp and "-fopenmp" not in self.flags \
            else self.flags

    @property
    def added_flags(self) -> tuple[str, ...]:
        """Flags the measurement adds that the project's own build (its compile database
        entry) lacks: OpenMP for a rewrite that uses it. Empty without a compile database."""
        if self.flags_source in ("defaults", "settings"):
            return ()
        return ("-fopenmp",) if self.openmp and "-fopenmp" not in self.flags else ()

    @property
    def suffix(self) -> str:
        """File suffix for the unit's source."""
        return ".c" if self.language == "c" else ".cpp"


def thread_count(settings: RunnerSettings) -> int:
    """The threads an OpenMP run uses: ``runner.threads``, else the cores this process may
    run on (fewer than the machine's when it is pinned, as a scan's Ray task is)."""
    if settings.threads > 0:
        return settings.threads
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _which(name: str) -> str | None:
    return shutil.which(name)


def uses_openmp(*texts: str) -> bool:
    """Whether any text contains an OpenMP pragma."""
    return any(_OMP.search(t) for t in texts)


def needs_openmp(flags: tuple[str, ...], *texts: str) -> bool:
    """Whether building ``texts`` with ``flags`` needs ``-fopenmp``: some text has an OpenMP
    pragma, unless every such pragma is a ``simd`` one and ``-fopenmp-simd`` already makes the
    compiler honour it (a serial simd variant then measures the project's own build)."""
    if "-fopenmp-simd" in flags:
        return any(_OMP_RUNTIME.search(t) for t in texts)
    return uses_openmp(*texts)


def choose_compilers(settings: RunnerSettings, language: Language) -> tuple[str, str, str]:
    """(unit compiler path, driver C++ compiler path, compiler name as configured)."""
    wanted = settings.compiler.strip() or ("gcc" if language == "c" else "g++")
    name = Path(wanted).name
    if language == "c" and name in _C_OF:
        name, wanted = _C_OF[name], str(Path(wanted).with_name(_C_OF[name]))
    if language == "cpp" and name in _CXX_OF:
        name, wanted = _CXX_OF[name], str(Path(wanted).with_name(_CXX_OF[name]))
    cc = _which(wanted)
    if cc is None:
        raise ToolchainError(f"compiler '{wanted}' not found on PATH; install it or set "
                             "perfpilot.runner.compiler")
    cxx_name = _CXX_OF.get(name, name) if language == "c" else name
    cxx = _which(str(Path(wanted).with_name(cxx_name))) or _which("g++") or _which("clang++")
    if cxx is None:
        raise ToolchainError("no C++ compiler (g++ or clang++) found for the measurement driver")
    return cc, cxx, name


def unit_flags(settings: RunnerSettings, language: Language, source_path: Path | None,
               entry: CompileFlags | None) -> tuple[tuple[str, ...], str]:
    """Flags for the unit: the compile database's ``entry``, else -O2 and a standard; settings
    last."""
    flags: list[str] = []
    origin = "defaults"
    if entry is not None:
        flags = [f for f in entry.flags if f not in _DROP_FOR_SO]
        origin = entry.source
    if origin == "defaults":
        flags = ["-O2", "-std=c11" if language == "c" else "-std=c++17"]
    if settings.flags:
        flags += list(settings.flags)
        if origin == "defaults":
            origin = "settings"
    if not any(f.startswith("-O") for f in flags):
        flags.insert(0, "-O2")
    if source_path is not None:
        # Quote includes of the unit keep resolving although it is compiled elsewhere.
        flags += ["-iquote", str(source_path.resolve().parent)]
    return tuple(flags), origin


def make_toolchain(inputs: MeasurementInputs, *texts: str) -> Toolchain:
    """Compilers for one job, with the flags its ``inputs`` resolved; OpenMP when the settings
    or flags ask for it or ``texts`` use it."""
    settings, flags = inputs.settings, inputs.flags
    cc, cxx, name = choose_compilers(settings, inputs.language)
    openmp = settings.openmp or needs_openmp(flags, *texts) or "-fopenmp" in flags
    return Toolchain(cc=cc, cxx=cxx, cc_name=name, language=inputs.language, flags=flags,
                     flags_source=inputs.flags_source, openmp=openmp)


def include_flags(flags: tuple[str, ...]) -> list[str]:
    """The preprocessor part of the flags (-I, -D, -iquote, ...), for the driver build."""
    out: list[str] = []
    i = 0
    while i < len(flags):
        f = flags[i]
        if f in ("-I", "-D", "-U", "-isystem", "-iquote", "-include") and i + 1 < len(flags):
            out += [f, flags[i + 1]]
            i += 2
            continue
        if f.startswith(("-I", "-D", "-U", "-isystem", "-iquote")):
            out.append(f)
        i += 1
    return out


def absolute_paths(flags: tuple[str, ...]) -> list[str]:
    """Absolute folders named by include flags (to make them visible inside the sandbox)."""
    out: list[str] = []
    separate = ("-I", "-isystem", "-iquote", "-include", "-idirafter", "-imacros", "-isysroot",
                "--sysroot", "-B", "-L")
    joined = ("-isystem", "-idirafter", "-isysroot", "--sysroot=", "-I", "-B", "-L")
    i = 0
    while i < len(flags):
        f = flags[i]
        value = ""
        if f in separate and i + 1 < len(flags):
            value = flags[i + 1]
            i += 1
        else:
            prefix = next((p for p in joined if f.startswith(p) and len(f) > len(p)), "")
            value = f[len(prefix):] if prefix else ""
        if value.startswith("/"):
            out.append(value)
        i += 1
    return out


def compiler_folders(tc: Toolchain, system: tuple[str, ...] = ("/usr", "/bin", "/sbin",
                                                                 "/lib", "/lib64")) -> list[str]:
    """Folders a sandbox must show for the compilers to start, when they live outside the
    system folders: the folder of the command and the installation prefix it resolves to
    (``/opt/llvm`` for ``/opt/llvm/bin/clang``)."""
    out: list[str] = []
    for path in (tc.cc, tc.cxx):
        real = os.path.realpath(path)
        for folder in (os.path.dirname(os.path.abspath(path)),
                       os.path.dirname(os.path.dirname(real))):
            if not any(folder == s or folder.startswith(s + "/") for s in system) \
                    and folder not in out and folder != "/":
                out.append(folder)
    return out


def counting_blocked(flags: tuple[str, ...], native_avx512: bool = True) -> str | None:
    """Why callgrind cannot count these builds (AVX-512 code valgrind cannot decode), if so."""
    for f in flags:
        arch = f.split("=", 1)[1] if f.startswith("-march=") else ""
        if (f == "-march=native" and native_avx512) or f.startswith("-mavx512") \
                or "avx512" in arch or arch in ("x86-64-v4", "skylake-avx512",
                                                "icelake-server", "sapphirerapids", "znver4"):
            return f"flag {f} may emit AVX-512 instructions, which valgrind cannot run"
    return None


def counting_flags(flags: tuple[str, ...]) -> tuple[str, ...]:
    """The flags with every AVX-512-capable target replaced by ``-march=x86-64-v3``."""
    kept = [f for f in flags if not (f.startswith(("-march=", "-mtune=native"))
                                     or f.startswith("-mavx512"))]
    return (*kept, "-march=x86-64-v3")


def cpu_has_avx512(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool:
    """Whether this CPU can run AVX-512 code (then -march=native emits it)."""
    try:
        return " avx512f" in cpuinfo.read_text(encoding="ascii", errors="replace")
    except OSError:
        return False
