"""The hostile-candidate corpus (tests/hostile/): every attack is refused by the capability
policy, and with the policy off it is contained by the sandbox (bubblewrap) or, where
bubblewrap is missing, never run at all. Nothing is left behind: no file, no process, no
secret in the verdict."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import shutil
import socket
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from perfpilot.code.locate import function_by_name
from perfpilot.code.site import FunctionSite
from perfpilot.progress import JobContext
from perfpilot.runner.admission import NO_SANDBOX
from perfpilot.runner.measure import verify_and_measure
from perfpilot.runner.sandbox import detect_sandbox
from perfpilot.runner.values import Tuning, Verdict
from perfpilot.settings import RunnerSettings
from sandbox_support import path_without_bwrap

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")

CORPUS = Path(__file__).parent / "hostile"
ATTACKS = sorted(p.stem for p in CORPUS.glob("*.cpp")
                 if p.stem not in ("original", "wrong_when_large"))
# With the policy off, each attack builds and runs under the sandbox (seconds each): `make test`
# runs one attack of each kind (a secret read, a process left behind, a connection, a file
# written, a file read at compile time), `make test-deep` every one. The policy's refusal runs
# on every attack in both.
CONTAINED = ATTACKS if os.environ.get("PERFPILOT_TEST_DEEP") == "1" else \
    ["environ_read", "include_absolute", "orphans", "tcp_socket", "write_bashrc"]
SETTINGS = RunnerSettings(pairs=6, callgrind=False, run_timeout_s=20.0, build_timeout_s=60.0)
# What the candidate does is under test, not how strong the inputs are: no mutation analysis
# or coverage of the (honest) original, which test_verification.py covers.
TUNING = Tuning(target_sample_s=0.0005, edge_sizes=(0, 1, 7, 33), budget_s=3.0,
                noisy_retries=0, build_cache=False, mutants=False, coverage=False)
NO_POLICY = replace(TUNING, capability_policy=False)
# Attacks spelled to slip past a check of names (tests/hostile/dodges/): a shadowing variable,
# a path built at run time, memoised answers in `static const` objects, a detached thread.
# What the syntax-tree policy must name for each; the compiled-code check names the symbol.
DODGES = {
    "shadowed_system": ("system",),
    "lambda_system": ("system",),
    "shadowed_fopen_remove": ("fopen", "remove"),
    "shadowed_getenv": ("getenv",),
    "shadowed_quick_exit": ("quick_exit",),
    "shadowed_dprintf": ("dprintf",),
    "runtime_tmp_path": ("fopen",),
    "memo_unique_ptr": ("static const std::unique_ptr",),
    "memo_mutable_struct": ("static const Memo memo{};",),
    "detached_thread": ("thread",),
    "exit_paths": ("exit", "_Exit"),
}
# The compiled-code check on its own: builds cached across the dodges (the original and the
# driver are built once), no sanitized builds (the check comes before any of them would run).
OBJECT_ONLY = replace(TUNING, build_cache=True, sanitizers=False, mutants=False, coverage=False)


@dataclass(frozen=True)
class Scene:
    """Everything an attack aims at, made for one test, and how to see what it did."""

    tag: str
    project: Path  # holds the source, a .git/hooks folder and a listening Unix socket
    home: Path
    mark: Path  # a folder anyone may write to
    secret_dir: Path
    secret: str
    unix: socket.socket
    tcp: socket.socket
    sleep: str  # the unique duration an orphan would sleep for

    def substitute(self, text: str) -> str:
        """The candidate's text with the scene's paths filled in."""
        return (text.replace("@TAG@", self.tag).replace("@PROJECT@", str(self.project))
                .replace("@HOME@", str(self.home)).replace("@MARK@", str(self.mark))
                .replace("@SECRET@", str(self.secret_dir / "secret.txt"))
                .replace("@SOCK@", str(self.project / "agent.sock"))
                .replace("@PORT@", str(self.tcp.getsockname()[1]))
                .replace("@SLEEP@", self.sleep))

    def site(self) -> FunctionSite:
        """The original function, located in the project's source file."""
        source = self.project / "original.cpp"
        return function_by_name(source.read_text(), "cpp", "sum_array",
                                uri=source.as_uri())

    def leftovers(self) -> list[str]:
        """Everything the attacks could have left: files, connections, processes."""
        found = [str(p) for folder in ("/tmp", "/var/tmp", "/dev/shm")
                 for p in Path(folder).glob(f"{self.tag}*")]
        found += [str(p) for p in self.mark.iterdir()]
        if (self.home / ".bashrc").read_text() != "# theirs\n":
            found.append(str(self.home / ".bashrc"))
        if (self.project / ".git" / "hooks" / "pre-commit").exists():
            found.append("pre-commit hook")
        for server in (self.unix, self.tcp):
            with contextlib.suppress(BlockingIOError):
                conn, _ = server.accept()
                conn.close()
                found.append(f"connection to {server.getsockname()}")
        found += [f"process {pid}" for pid in _processes_with(self.sleep)]
        return found

    def leaks(self, verdict: Verdict) -> bool:
        """Whether the secret (as text, or as the number its first bytes make) is anywhere
        in the verdict."""
        text = json.dumps(verdict.to_json()) + verdict.message + " ".join(verdict.notes)
        number = int.from_bytes(self.secret.encode()[:8], "little", signed=True)
        return self.secret in text or str(number) in text or f"{number:x}" in text


def _processes_with(marker: str) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if marker.encode() in (entry / "cmdline").read_bytes():
                    out.append(int(entry.name))
    return out


@pytest.fixture
def scene(monkeypatch: pytest.MonkeyPatch) -> Iterator[Scene]:
    tag = f"pp-hostile-{secrets.token_hex(4)}"
    base = Path(tempfile.mkdtemp(prefix="pp-scene-", dir="/var/tmp"))
    os.chmod(base, 0o755)
    project, home, mark = base / "project", base / "home", base / "mark"
    for folder in (project / ".git" / "hooks", home, mark):
        folder.mkdir(parents=True)
    os.chmod(mark, 0o777)
    shutil.copy(CORPUS / "original.cpp", project / "original.cpp")
    (home / ".bashrc").write_text("# theirs\n")
    secret_dir = Path(tempfile.mkdtemp(prefix="pp-private-", dir="/var/tmp"))
    value = f"PPSECRET-{secrets.token_hex(8)}"
    (secret_dir / "secret.txt").write_text(value)
    os.chmod(secret_dir / "secret.txt", stat.S_IRUSR | stat.S_IWUSR)
    monkeypatch.setenv("PP_HOSTILE_SECRET", value)
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(str(project / "agent.sock"))
    os.chmod(project / "agent.sock", 0o777)
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    for server in (unix, tcp):
        server.listen(4)
        server.setblocking(False)
    sleep = f"{secrets.randbelow(900) + 100}.{secrets.randbelow(10**6):06d}"
    made = Scene(tag, project, home, mark, secret_dir, value, unix, tcp, sleep)
    try:
        yield made
    finally:
        unix.close()
        tcp.close()
        for pid in _processes_with(sleep):
            with contextlib.suppress(OSError):
                os.kill(pid, 9)
        for folder in ("/tmp", "/var/tmp", "/dev/shm"):
            for p in Path(folder).glob(f"{tag}*"):
                shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink()
        shutil.rmtree(secret_dir, ignore_errors=True)
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def no_bwrap(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """PATH without bubblewrap for the test's duration."""
    with path_without_bwrap() as path:
        monkeypatch.setenv("PATH", path)
        assert shutil.which("bwrap") is None
        yield path


async def _measure(scene: Scene, attack: str, tuning: Tuning,
                   settings: RunnerSettings = SETTINGS, origin: str = "model") -> Verdict:
    code = scene.substitute((CORPUS / f"{attack}.cpp").read_text())
    site = scene.site()
    return await verify_and_measure(site, code, settings, JobContext(), tuning=tuning,
                                    source_path=scene.project / "original.cpp",
                                    origin=origin)  # type: ignore[arg-type]


async def _measure_cached(scene: Scene, attack: str) -> Verdict:
    """``_measure`` with ``OBJECT_ONLY`` and without the scene's source path, so that the
    compile flags (no ``-iquote`` of a fresh folder) and with them the cached builds of the
    original and the driver are the same in every test."""
    code = scene.substitute((CORPUS / f"{attack}.cpp").read_text())
    site = function_by_name((CORPUS / "original.cpp").read_text(), "cpp", "sum_array")
    return await verify_and_measure(site, code, SETTINGS, JobContext(), tuning=OBJECT_ONLY,
                                    origin="model")


async def _settled(scene: Scene) -> list[str]:
    # A process killed with its namespace may take a moment to disappear from /proc.
    for _ in range(20):
        left = scene.leftovers()
        if not left:
            return left
        await asyncio.sleep(0.1)
    return scene.leftovers()


@pytest.mark.parametrize("attack", ATTACKS)
async def test_the_policy_rejects_every_attack_before_building(scene: Scene,
                                                               attack: str) -> None:
    verdict = await _measure(scene, attack, TUNING)
    assert verdict.verdict == "rejected", verdict.message
    assert "capability policy" in verdict.message and "`" in verdict.message
    assert verdict.build_log == "" and verdict.speedup is None
    assert not await _settled(scene)
    assert not scene.leaks(verdict)


@pytest.mark.sweep
@pytest.mark.parametrize("attack", CONTAINED)
async def test_with_the_policy_off_bubblewrap_contains_every_attack(scene: Scene,
                                                                   attack: str) -> None:
    sandbox = await detect_sandbox(True)
    if sandbox.mode != "bwrap":
        pytest.skip("bubblewrap is not available here")
    verdict = await _measure(scene, attack, NO_POLICY)
    assert verdict.verdict != "rejected"
    assert not await _settled(scene), verdict.message
    assert not scene.leaks(verdict)


@pytest.mark.parametrize("attack", ATTACKS)
async def test_without_bubblewrap_model_candidates_never_run(scene: Scene, no_bwrap: str,
                                                             attack: str) -> None:
    verdict = await _measure(scene, attack, NO_POLICY)
    assert verdict.verdict == "rejected"
    assert verdict.message == NO_SANDBOX
    assert not await _settled(scene)
    assert not scene.leaks(verdict)


def test_the_sampled_attacks_are_in_the_corpus() -> None:
    assert set(CONTAINED) <= set(ATTACKS)


def test_every_dodge_in_the_corpus_has_its_expectation() -> None:
    on_disk = {p.stem for p in (CORPUS / "dodges").glob("*.cpp")} - {"honest"}
    assert on_disk == set(DODGES)


@pytest.mark.parametrize("dodge", sorted(DODGES))
async def test_the_policy_names_every_dodge_before_building(scene: Scene, dodge: str) -> None:
    verdict = await _measure(scene, f"dodges/{dodge}", TUNING)
    assert verdict.verdict == "rejected", verdict.message
    assert verdict.build_log == "" and "capability policy" in verdict.message
    named = {note.split("`")[1] for note in verdict.notes if "`" in note}
    for construct in DODGES[dodge]:
        assert any(n.startswith(construct) for n in named), verdict.notes
    assert not await _settled(scene)


@pytest.fixture(scope="module")
def build_cache_folder() -> Iterator[str]:
    folder = tempfile.mkdtemp(prefix="pp-hostile-cache-")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("dodge", sorted(DODGES))
async def test_the_compiled_check_alone_refuses_every_dodge_before_it_runs(
        scene: Scene, dodge: str, build_cache_folder: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from perfpilot.runner import measure

    # Names can be spelled past any list: the object check must hold without the syntax one.
    monkeypatch.setattr(measure, "policy_verdict", lambda *a, **k: None)
    monkeypatch.setenv("XDG_CACHE_HOME", build_cache_folder)
    verdict = await _measure_cached(scene, f"dodges/{dodge}")
    assert verdict.verdict == "rejected", verdict.message
    assert verdict.message.startswith("Rejected by the capability policy before it ran"), \
        verdict.message
    assert verdict.validation_status == "skipped" and verdict.speedup is None
    assert not await _settled(scene)
    assert not scene.leaks(verdict)


async def test_the_honest_rewrite_passes_both_checks(scene: Scene, build_cache_folder: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", build_cache_folder)
    verdict = await _measure_cached(scene, "dodges/honest")
    assert verdict.verdict not in ("rejected", "build-failed", "incorrect"), verdict.message
    assert verdict.validation_status == "passed"


async def test_without_bubblewrap_an_opt_in_runs_model_code_and_the_builtin_rules_run(
        scene: Scene, no_bwrap: str) -> None:
    allowed = replace(SETTINGS, allow_unsandboxed=True)
    plain = (CORPUS / "original.cpp").read_text().replace("s += a[i];", "s = s + a[i];")
    site = scene.site()
    for settings, origin in ((allowed, "model"), (SETTINGS, "builtin")):
        verdict = await verify_and_measure(site, plain, settings, JobContext(), tuning=TUNING,
                                           origin=origin)  # type: ignore[arg-type]
        assert verdict.verdict not in ("rejected", "build-failed"), verdict.message
        assert verdict.validation_status == "passed"


async def test_orphans_die_with_the_job_without_bubblewrap_too(scene: Scene,
                                                               no_bwrap: str) -> None:
    sandbox = await detect_sandbox(True)
    if not sandbox.pid_namespace:
        pytest.skip("no PID namespace without bubblewrap here (reported in the notes)")
    allowed = replace(SETTINGS, allow_unsandboxed=True)
    verdict = await _measure(scene, "orphans", NO_POLICY, allowed)
    assert verdict.verdict != "rejected"
    assert not [p for p in await _settled(scene) if p.startswith("process")]


async def test_a_candidate_wrong_only_at_large_sizes_is_not_faster(scene: Scene) -> None:
    verdict = await _measure(scene, "wrong_when_large", TUNING)
    assert verdict.verdict == "incorrect", verdict.message
    assert verdict.speedup is None


def test_a_workspace_file_cannot_switch_the_sandbox_off(tmp_path: Path) -> None:
    from perfpilot.engine.workspace_config import workspace_settings

    (tmp_path / ".perfpilot.toml").write_text(
        "[runner]\nsandbox = false\nallow_unsandboxed = true\npairs = 7\n")
    settings = workspace_settings(tmp_path)
    assert settings.runner.pairs == 7
    assert settings.runner.sandbox and not settings.runner.allow_unsandboxed


def test_the_command_line_opts_in_with_a_flag() -> None:
    from perfpilot.cli import build_parser
    from perfpilot.cli_options import setting_overrides

    args = build_parser().parse_args(["optimize", "x.cpp", "-f", "f", "--allow-unsandboxed"])
    assert setting_overrides(args)["runner"]["allow_unsandboxed"] is True
    plain = build_parser().parse_args(["optimize", "x.cpp", "-f", "f"])
    assert "allow_unsandboxed" not in setting_overrides(plain)["runner"]
