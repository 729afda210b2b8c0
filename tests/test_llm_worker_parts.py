"""The local worker's pure parts: finding model files, error messages, prompts, stop strings."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfpilot.llm.errors import LocalModelError
from perfpilot.llm.local import WorkerSpec, worker_env
from perfpilot.llm.local_worker import (
    ModelFiles,
    generation_error,
    load_error,
    locate_model_files,
    merge_system,
    plain_prompt,
    truncate_at_stop,
)
from perfpilot.settings import RoleSettings


def test_model_directory_and_gguf_files(tmp_path: Path) -> None:
    hf = tmp_path / "hf"
    hf.mkdir()
    (hf / "config.json").write_text("{}")
    with pytest.raises(LocalModelError) as err:
        locate_model_files(str(hf))
    # The whole message, not one cut at a list of names.
    assert str(err.value).endswith("(copy them from the repository the model came from)")
    assert "no tokenizer files" in str(err.value) and "tokenizer.json" in str(err.value)
    (hf / "tokenizer.json").write_text("{}")
    assert locate_model_files(str(hf)) == ModelFiles(hf, None)
    gg = tmp_path / "gg"
    gg.mkdir()
    (gg / "m.Q4.gguf").write_bytes(b"GGUF")
    assert locate_model_files(str(gg)) == ModelFiles(gg, "m.Q4.gguf")
    assert locate_model_files(str(gg / "m.Q4.gguf")) == ModelFiles(gg, "m.Q4.gguf")
    (gg / "other.gguf").write_bytes(b"GGUF")
    with pytest.raises(LocalModelError, match=r"several \.gguf files"):
        locate_model_files(str(gg))
    with pytest.raises(LocalModelError, match="no local model is configured"):
        locate_model_files("  ")
    with pytest.raises(LocalModelError, match="path of a downloaded model directory"):
        locate_model_files("Qwen/Qwen2.5-Coder-0.5B-Instruct")


def test_load_and_generation_errors_are_user_messages(tmp_path: Path) -> None:
    files = ModelFiles(tmp_path, "m.gguf")
    oom = load_error(MemoryError(), files)
    assert oom.kind == "out-of-memory" and "not enough memory to load" in str(oom)
    cuda_oom = load_error(RuntimeError("CUDA out of memory. Tried to allocate 2 GiB"), files)
    assert cuda_oom.kind == "out-of-memory"
    missing = load_error(ImportError("No module named 'gguf'"), files)
    assert missing.kind == "missing-dependency" and "perfpilot[local]" in str(missing)
    bad = load_error(ValueError("Unrecognized model type\nmore detail"), files)
    assert str(bad) == (f"could not load the model {tmp_path / 'm.gguf'}: Unrecognized model "
                        "type more detail")
    listed = load_error(OSError("Can't load tokenizer for 'x'. Make sure that:\n- 'x' is a "
                                "correct path\n- it holds files from one of:\n"
                                "tokenizer.json, vocab.json"), files)
    assert str(listed).endswith("from one of: tokenizer.json, vocab.json")

    assert generation_error(RuntimeError("CUDA out of memory"), "cuda:0") == {
        "kind": "out-of-memory",
        "message": "the model ran out of memory on cuda:0 while generating; lower maxTokens "
                   "or samples, or use a smaller model"}
    too_long = generation_error(LocalModelError("the prompt has 9000 tokens", "bad-request"),
                                "cpu")
    assert too_long == {"kind": "bad-request", "message": "the prompt has 9000 tokens"}
    assert generation_error(KeyError("x"), "cpu")["message"] == "generation failed: 'x'"


def test_prompt_helpers() -> None:
    messages = [{"role": "system", "content": "S"}, {"role": "user", "content": "U"}]
    assert merge_system(messages) == [{"role": "user", "content": "S\n\nU"}]
    assert plain_prompt(messages).endswith("user:\nU\n\nassistant:\n")
    assert truncate_at_stop("plan [/SUGG] code", ["[/SUGG]", "zzz"]) == "plan "
    assert truncate_at_stop("abc", []) == "abc"


def test_worker_env_pins_threads_and_offline() -> None:
    env = worker_env(WorkerSpec.from_role(RoleSettings(backend="local", model="/m", threads=3)),
                     {"PATH": "/bin"})
    assert env["OMP_NUM_THREADS"] == "3" and env["MKL_NUM_THREADS"] == "3"
    assert env["HF_HUB_OFFLINE"] == "1" and env["PATH"] == "/bin"


async def test_check_endpoint_for_local_and_builtin_roles(tmp_path: Path) -> None:
    from perfpilot.llm.check import check_endpoint

    (tmp_path / "config.json").write_text("{}")
    ok, message = await check_endpoint(RoleSettings(backend="local", model=str(tmp_path)), None)
    assert not ok and str(tmp_path) in message and "no tokenizer files" in message
    ok, message = await check_endpoint(
        RoleSettings(backend="local", model=str(tmp_path / "gone")), None)
    assert not ok and "does not exist" in message
    assert (await check_endpoint(RoleSettings(), None))[0]
