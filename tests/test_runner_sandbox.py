"""The sandbox against hostile programs: each must fail safely and be reported."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from perfpilot.progress import Cancelled, JobContext
from perfpilot.runner.sandbox import (
    Limits,
    Sandbox,
    detect_sandbox,
    make_writable_for_runs,
    run_sandboxed,
    work_directory,
)
from sandbox_support import path_without_bwrap

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")


@pytest.fixture(params=["bubblewrap", "hidden"])
def either(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Run the test as it is, then again with bubblewrap hidden from PATH."""
    if request.param == "bubblewrap":
        yield request.param
        return
    with path_without_bwrap() as path:
        monkeypatch.setenv("PATH", path)
        yield request.param


async def _build(sandbox: Sandbox, workdir: Path, source: str) -> str:
    (workdir / "p.c").write_text(source)
    res = await run_sandboxed(sandbox, ["gcc", "-O1", "p.c", "-o", "p"], workdir, timeout_s=60,
                              limits=Limits(), unprivileged=False)
    assert res.returncode == 0, res.stderr
    make_writable_for_runs(workdir, sandbox)
    return "./p"


async def _run(source: str, *, timeout_s: float = 10.0, limits: Limits | None = None,
               args: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    sandbox = await detect_sandbox(True)
    async with work_directory() as workdir:
        prog = await _build(sandbox, workdir, source)
        res = await run_sandboxed(sandbox, [prog, *args], workdir, timeout_s=timeout_s,
                                  limits=limits or Limits(memory_mb=256, cpu_s=20, nproc=256))
    return sandbox, res


async def test_detects_a_mode_and_describes_it() -> None:
    sandbox = await detect_sandbox(True)
    assert sandbox.mode in ("bwrap", "unshare", "none")
    assert sandbox.describe()
    if shutil.which("bwrap"):
        assert sandbox.mode == "bwrap"
    disabled = await detect_sandbox(False)
    assert disabled.mode == "none"
    assert any("disabled" in n for n in disabled.notes)


async def test_infinite_loop_is_killed_at_the_timeout(either: str) -> None:
    _, res = await _run("int main(void) { volatile int x = 0; for (;;) x++; }", timeout_s=1.5)
    assert res.timed_out
    assert res.wall_s < 10


async def test_cpu_limit_stops_a_spinning_program() -> None:
    _, res = await _run("int main(void) { volatile int x = 0; for (;;) x++; }", timeout_s=30,
                        limits=Limits(memory_mb=256, cpu_s=1, nproc=256))
    assert not res.timed_out
    assert res.signal is not None  # SIGXCPU or SIGKILL from RLIMIT_CPU


async def test_memory_bomb_fails_under_the_address_space_limit() -> None:
    source = r"""
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>
    int main(void) {
      size_t total = 0;
      for (int i = 0; i < 64; ++i) {
        char* p = malloc(64u << 20);
        if (!p) { printf("refused after %zu MB\n", total >> 20); return 3; }
        memset(p, 1, 64u << 20);
        total += 64u << 20;
      }
      printf("allocated %zu MB\n", total >> 20);
      return 0;
    }
    """
    _, res = await _run(source, limits=Limits(memory_mb=256, cpu_s=20, nproc=256))
    assert res.returncode != 0
    assert "allocated 4096" not in res.stdout


async def test_fork_bomb_is_contained() -> None:
    source = r"""
    #include <stdio.h>
    #include <unistd.h>
    #include <sys/wait.h>
    int main(void) {
      int ok = 0, failed = 0;
      for (int i = 0; i < 200; ++i) {
        pid_t p = fork();
        if (p == 0) { sleep(2); _exit(0); }
        if (p < 0) failed++; else ok++;
      }
      printf("forked %d failed %d\n", ok, failed);
      while (wait(NULL) > 0) {}
      return 0;
    }
    """
    sandbox, res = await _run(source, timeout_s=20,
                              limits=Limits(memory_mb=256, cpu_s=20, nproc=20))
    if sandbox.drop_user or os.geteuid() != 0:
        assert "failed 0" not in res.stdout, res.stdout
    else:
        pytest.skip("running as root without setpriv: RLIMIT_NPROC is not enforced")


async def test_write_outside_the_work_folder_is_blocked() -> None:
    # A world-writable folder outside /tmp: only a read-only root stops the write.
    folder = Path(tempfile.mkdtemp(prefix="perfpilot-test-", dir="/var/tmp"))
    try:
        os.chmod(folder, 0o777)
        target = folder / "escaped.txt"
        source = f"""
        #include <stdio.h>
        int main(void) {{
          FILE* f = fopen("{target}", "w");
          if (!f) {{ puts("blocked"); return 0; }}
          fputs("x", f); fclose(f); puts("written"); return 0;
        }}
        """
        sandbox, res = await _run(source)
        if sandbox.mode != "bwrap":
            pytest.skip("without bubblewrap the file system is not isolated (reported)")
        assert "blocked" in res.stdout
        assert not target.exists()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def test_network_connection_is_refused(either: str) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    source = f"""
    #include <arpa/inet.h>
    #include <stdio.h>
    #include <sys/socket.h>
    #include <unistd.h>
    int main(void) {{
      int s = socket(AF_INET, SOCK_STREAM, 0);
      struct sockaddr_in a = {{0}};
      a.sin_family = AF_INET; a.sin_port = htons({port});
      a.sin_addr.s_addr = htonl(0x7f000001);
      if (connect(s, (struct sockaddr*)&a, sizeof a) == 0) {{ puts("connected"); return 0; }}
      puts("refused"); return 0;
    }}
    """
    try:
        sandbox, res = await _run(source)
    finally:
        server.close()
    if sandbox.mode == "none":
        pytest.skip("no network isolation available here")
    assert "refused" in res.stdout


async def test_escaping_child_does_not_outlive_the_timeout(either: str) -> None:
    # The child leaves the process group, ignores SIGTERM and would write a file 2 s later.
    source = """
    #include <signal.h>
    #include <stdio.h>
    #include <unistd.h>
    int main(void) {
      if (fork() == 0) {
        setsid(); signal(SIGTERM, SIG_IGN);
        sleep(2);
        FILE* f = fopen("alive", "w"); if (f) fclose(f);
        _exit(0);
      }
      for (;;) pause();
    }
    """
    sandbox = await detect_sandbox(True)
    if not sandbox.pid_namespace:
        pytest.skip("only a PID namespace stops a child that leaves the process group")
    async with work_directory() as workdir:
        prog = await _build(sandbox, workdir, source)
        res = await run_sandboxed(sandbox, [prog], workdir, timeout_s=1.0,
                                  limits=Limits(memory_mb=256, cpu_s=20, nproc=256))
        assert res.timed_out
        await asyncio.sleep(2.5)
        assert not (workdir / "alive").exists()


async def test_work_directory_is_removed_even_after_an_error() -> None:
    seen: list[Path] = []
    with pytest.raises(RuntimeError):
        async with work_directory() as wd:
            seen.append(wd)
            (wd / "file").write_text("x")
            raise RuntimeError("boom")
    assert seen and not seen[0].exists()


async def test_cancellation_kills_the_process_group(either: str) -> None:
    sandbox = await detect_sandbox(True)
    ctx = JobContext()
    async with work_directory() as workdir:
        prog = await _build(sandbox, workdir,
                            "int main(void) { volatile int x = 0; for (;;) x++; }")

        async def cancel_soon() -> None:
            await asyncio.sleep(0.5)
            ctx.cancel()

        task = asyncio.create_task(cancel_soon())
        start = asyncio.get_running_loop().time()
        with pytest.raises(Cancelled):
            await run_sandboxed(sandbox, [prog], workdir, timeout_s=60, limits=Limits(), ctx=ctx)
        await task
        assert asyncio.get_running_loop().time() - start < 10


async def test_compiles_cannot_read_private_files_when_run_as_root() -> None:
    from perfpilot.code.locate import function_by_name
    from perfpilot.runner.measure import verify_and_measure
    from perfpilot.runner.values import Tuning
    from perfpilot.settings import RunnerSettings

    sandbox = await detect_sandbox(True)
    if not (os.geteuid() == 0 and sandbox.drop_user):
        pytest.skip("only a server running as root drops privileges for compiles")
    folder = Path(tempfile.mkdtemp(prefix="perfpilot-secret-", dir="/var/tmp"))
    try:
        os.chmod(folder, 0o700)
        secret = folder / "secret.h"
        secret.write_text("TOP-SECRET-TOKEN-4711\n")
        os.chmod(secret, 0o600)
        unit = "int twice(int n) { return 2 * n; }\n"
        site = function_by_name(unit, "cpp", "twice")
        hostile = f'#include "{secret}"\nint twice(int n) {{ return n + n; }}'
        refused = await verify_and_measure(site, hostile, RunnerSettings(callgrind=False),
                                           JobContext(), tuning=Tuning(target_sample_s=0.001))
        assert refused.verdict == "rejected" and str(secret) in refused.message
        # The policy off: the sandbox alone must still keep the file out of the log.
        v = await verify_and_measure(site, hostile, RunnerSettings(callgrind=False),
                                     JobContext(), tuning=Tuning(target_sample_s=0.001,
                                                                 capability_policy=False))
        assert v.verdict == "build-failed"
        # Not there at all (only the folders a compile needs are visible), or not readable.
        assert "No such file" in v.build_log or "Permission denied" in v.build_log
        assert "TOP-SECRET-TOKEN" not in v.build_log + v.message
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _needs_bwrap(sandbox: Sandbox) -> None:
    if sandbox.mode != "bwrap":
        pytest.skip("bubblewrap is not available here")


async def test_private_folders_are_private_and_the_rest_is_not_there() -> None:
    tag = f"pp-private-{os.getpid()}-{id(object())}"
    source = f"""
    #include <stdio.h>
    #include <unistd.h>
    int main(void) {{
      const char* dirs[] = {{"/tmp", "/var/tmp", "/dev/shm", "/run"}};
      for (int i = 0; i < 4; ++i) {{
        char path[256]; snprintf(path, sizeof path, "%s/{tag}", dirs[i]);
        FILE* f = fopen(path, "w");
        printf("%s:%s\\n", dirs[i], f ? "written" : "refused");
        if (f) fclose(f);
      }}
      const char* hidden[] = {{"/root", "/home", "/etc/shadow", "/etc/passwd", "/var/lib"}};
      for (int i = 0; i < 5; ++i)
        printf("%s:%s\\n", hidden[i], access(hidden[i], F_OK) == 0 ? "visible" : "absent");
      return 0;
    }}
    """
    sandbox, res = await _run(source)
    _needs_bwrap(sandbox)
    for folder in ("/tmp", "/var/tmp", "/dev/shm", "/run"):
        # Writable (sticky) where programs expect to write, and private: nothing outside.
        if folder != "/run":
            assert f"{folder}:written" in res.stdout, res.stdout
        assert not Path(folder, tag).exists()
    for path in ("/root", "/home", "/etc/shadow", "/etc/passwd", "/var/lib"):
        assert f"{path}:absent" in res.stdout, res.stdout


async def test_no_socket_of_any_family_can_be_made() -> None:
    folder = Path(tempfile.mkdtemp(prefix="pp-sock-", dir="/var/tmp"))
    os.chmod(folder, 0o755)
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(folder / "bus"))
    os.chmod(folder / "bus", 0o777)
    server.listen(1)
    server.setblocking(False)
    source = f"""
    #include <errno.h>
    #include <stdio.h>
    #include <string.h>
    #include <sys/socket.h>
    #include <sys/un.h>
    int main(void) {{
      int families[] = {{AF_UNIX, AF_INET, AF_INET6, AF_NETLINK}};
      for (int i = 0; i < 4; ++i) {{
        int s = socket(families[i], SOCK_STREAM, 0);
        printf("family %d: %s\\n", families[i], s < 0 ? strerror(errno) : "made");
      }}
      int s = socket(AF_UNIX, SOCK_STREAM, 0);
      struct sockaddr_un a; memset(&a, 0, sizeof a); a.sun_family = AF_UNIX;
      strcpy(a.sun_path, "{folder}/bus");
      puts(s >= 0 && connect(s, (struct sockaddr*)&a, sizeof a) == 0 ? "connected" : "refused");
      return 0;
    }}
    """
    try:
        sandbox = await detect_sandbox(True)
        _needs_bwrap(sandbox)
        if not sandbox.seccomp:
            pytest.skip("no seccomp filter for this machine")
        async with work_directory() as workdir:
            prog = await _build(sandbox, workdir, source)
            res = await run_sandboxed(sandbox, [prog], workdir, timeout_s=20,
                                      limits=Limits(memory_mb=256, cpu_s=20, nproc=256),
                                      ro_binds=[str(folder)])
        assert "made" not in res.stdout and "refused" in res.stdout, res.stdout
        assert res.stdout.count("Permission denied") == 4, res.stdout
        with pytest.raises(BlockingIOError):
            server.accept()
    finally:
        server.close()
        shutil.rmtree(folder, ignore_errors=True)


async def test_a_source_below_a_subfolder_of_tmp_builds_as_nobody() -> None:
    sandbox = await detect_sandbox(True)
    _needs_bwrap(sandbox)
    folder = Path(tempfile.mkdtemp(prefix="pp-src-", dir="/tmp")) / "deeper" / "src"
    folder.mkdir(parents=True)
    try:
        for p in (folder, *folder.parents):
            if str(p).startswith("/tmp/"):
                os.chmod(p, 0o755)
        (folder / "k.h").write_text("#define K 41\n")
        async with work_directory() as workdir:
            make_writable_for_runs(workdir, sandbox)
            (workdir / "p.c").write_text('#include "k.h"\nint main(void) { return K - 41; }\n')
            os.chmod(workdir / "p.c", 0o644)
            res = await run_sandboxed(sandbox, ["gcc", "-iquote", str(folder), "p.c", "-o",
                                                "p"], workdir, timeout_s=60, limits=Limits(),
                                      unprivileged=True, ro_binds=[str(folder)])
            assert res.returncode == 0, res.stderr
    finally:
        shutil.rmtree(folder.parent.parent, ignore_errors=True)


async def test_a_detached_child_dies_when_the_job_ends_normally(either: str) -> None:
    marker = f"{os.getpid() % 700 + 100}.{id(object()) % 999983:06d}"
    source = f"""
    #include <unistd.h>
    int main(void) {{
      if (fork() == 0) {{
        setsid();
        if (fork() == 0) {{ execl("/bin/sleep", "sleep", "{marker}", (char*)0); _exit(0); }}
        _exit(0);
      }}
      sleep(1);
      return 0;
    }}
    """
    sandbox, res = await _run(source)
    if not sandbox.pid_namespace:
        pytest.skip("no PID namespace here: a detached child may outlive the job (reported)")
    assert res.returncode == 0 and not res.timed_out
    await asyncio.sleep(0.3)
    alive = [p for p in Path("/proc").iterdir() if p.name.isdigit()
             and marker.encode() in _cmdline(p)]
    for p in alive:
        with contextlib.suppress(OSError):
            os.kill(int(p.name), 9)
    assert not alive


def _cmdline(proc: Path) -> bytes:
    try:
        return (proc / "cmdline").read_bytes()
    except OSError:
        return b""


def test_the_seccomp_program_is_whole_instructions_for_the_machines_covered() -> None:
    from perfpilot.runner import seccomp

    for machine in ("x86_64", "aarch64"):
        program = seccomp.program(machine)
        assert program is not None and len(program) % 8 == 0 and len(program) // 8 < 255
    assert seccomp.program("riscv64") is None


async def test_a_compiler_installed_outside_the_system_folders_still_runs() -> None:
    from perfpilot.code.locate import function_by_name
    from perfpilot.runner.measure import verify_and_measure
    from perfpilot.runner.values import Tuning
    from perfpilot.settings import RunnerSettings

    real = shutil.which("g++")
    if real is None:
        pytest.skip("g++ not installed")
    prefix = Path(tempfile.mkdtemp(prefix="pp-toolchain-", dir="/var/tmp"))
    try:
        os.chmod(prefix, 0o755)
        (prefix / "bin").mkdir(mode=0o755)
        wrapper = prefix / "bin" / "g++"
        wrapper.write_text(f'#!/bin/sh\nexec {real} "$@"\n')
        os.chmod(wrapper, 0o755)
        unit = "int twice(int n) { return 2 * n; }\n"
        site = function_by_name(unit, "cpp", "twice")
        v = await verify_and_measure(site, "int twice(int n) { return n + n; }",
                                     RunnerSettings(compiler=str(wrapper), callgrind=False,
                                                    pairs=6),
                                     JobContext(), tuning=Tuning(target_sample_s=0.0005,
                                                                 budget_s=3.0))
        assert v.validation_status == "passed", v.message + v.build_log
    finally:
        shutil.rmtree(prefix, ignore_errors=True)


def test_every_folder_the_flags_read_from_is_made_visible() -> None:
    from perfpilot.runner.toolchain import absolute_paths

    flags = ("-I/a", "-I", "/b", "-isystem/c", "-iquote", "/e", "-include", "/f.h",
             "--sysroot=/g", "-B/h", "-idirafter", "/i", "-imacros", "/j.h", "-Irel", "-O2")
    assert absolute_paths(flags) == ["/a", "/b", "/c", "/e", "/f.h", "/g", "/h", "/i", "/j.h"]


async def test_a_compile_as_root_still_enters_a_folder_handed_to_nobody() -> None:
    sandbox = await detect_sandbox(True)
    if not (os.geteuid() == 0 and sandbox.drop_user):
        pytest.skip("only a server running as root hands folders to nobody")
    async with work_directory() as workdir:
        make_writable_for_runs(workdir, sandbox)
        for unprivileged in (True, False):
            res = await run_sandboxed(sandbox, ["sh", "-c", f"touch made-{unprivileged}"],
                                      workdir, timeout_s=20, limits=Limits(),
                                      unprivileged=unprivileged)
            assert res.returncode == 0, res.stderr
        assert not workdir.stat().st_mode & 0o007  # nothing for other users


def test_a_read_only_bind_never_covers_the_private_folders(tmp_path: Path) -> None:
    from perfpilot.runner.sandbox import bwrap_args

    args = bwrap_args(tmp_path, ["/tmp", "/var", str(tmp_path)])
    binds = [args[i + 1] for i, a in enumerate(args) if a == "--ro-bind"]
    # /tmp (a source file saved there) and /var would hide the private /tmp, /var/tmp and the
    # work folder mounted inside them; a folder below them is bound as asked.
    assert "/tmp" not in binds and "/var" not in binds
    assert str(tmp_path) in binds
