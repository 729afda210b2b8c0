"""Device and dtype resolution for the local backend (pure: the GPU rules run on any CPU)."""

from __future__ import annotations

import pytest

from perfpilot.llm.devices import Hardware, Placement, normalize_dtype, resolve_placement
from perfpilot.llm.errors import LocalModelError

NO_GPU = Hardware()
ONE_BF16_GPU = Hardware(cuda_available=True, cuda_count=1, bf16_supported=True,
                        accelerate_available=True)
TWO_OLD_GPUS = Hardware(cuda_available=True, cuda_count=2, bf16_supported=False,
                        accelerate_available=False)


def test_cpu_defaults_to_float32_and_no_device_map() -> None:
    assert resolve_placement("cpu", "auto", ONE_BF16_GPU) == Placement("cpu", None, "float32")


def test_cpu_keeps_an_explicit_dtype() -> None:
    assert resolve_placement("cpu", "bf16", NO_GPU).dtype == "bfloat16"


def test_auto_without_gpu_falls_back_to_cpu_with_a_note() -> None:
    p = resolve_placement("auto", "auto", NO_GPU)
    assert (p.device, p.device_map, p.dtype) == ("cpu", None, "float32")
    assert p.notes and "CPU" in p.notes[0]


def test_auto_with_accelerate_uses_device_map_auto_and_bf16() -> None:
    p = resolve_placement("auto", "auto", ONE_BF16_GPU)
    assert (p.device, p.device_map, p.dtype) == ("cuda:0", "auto", "bfloat16")


def test_auto_without_accelerate_uses_first_gpu_and_fp16_without_bf16() -> None:
    p = resolve_placement("auto", "auto", TWO_OLD_GPUS)
    assert (p.device, p.device_map, p.dtype) == ("cuda:0", None, "float16")
    assert any("accelerate" in n for n in p.notes)


def test_bf16_request_on_gpu_without_bf16_falls_back_to_fp16() -> None:
    p = resolve_placement("cuda:1", "bfloat16", TWO_OLD_GPUS)
    assert (p.device, p.dtype) == ("cuda:1", "float16")
    assert p.notes


def test_cuda_without_gpu_is_a_clear_error() -> None:
    with pytest.raises(LocalModelError, match="no CUDA GPU") as info:
        resolve_placement("cuda", "auto", NO_GPU)
    assert info.value.kind == "device"


def test_cuda_index_out_of_range() -> None:
    with pytest.raises(LocalModelError, match="only 2 GPU"):
        resolve_placement("cuda:2", "auto", TWO_OLD_GPUS)


@pytest.mark.parametrize("bad", ["tpu", "cuda:x", "gpu0"])
def test_unknown_device(bad: str) -> None:
    with pytest.raises(LocalModelError, match="unknown device"):
        resolve_placement(bad, "auto", ONE_BF16_GPU)


@pytest.mark.parametrize(("given", "want"), [("fp16", "float16"), ("torch.bfloat16", "bfloat16"),
                                             ("FLOAT32", "float32"), ("", "auto")])
def test_dtype_aliases(given: str, want: str) -> None:
    assert normalize_dtype(given) == want


def test_unknown_dtype() -> None:
    with pytest.raises(LocalModelError, match="unknown dtype 'int3'"):
        normalize_dtype("int3")
