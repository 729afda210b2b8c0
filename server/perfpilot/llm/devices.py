"""Where and in which precision a local model runs: a pure function of settings and hardware.

Kept free of torch so it can be unit-tested everywhere, including the GPU rules on a CPU box.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perfpilot.llm.errors import LocalModelError

_DTYPE_ALIASES = {
    "auto": "auto",
    "": "auto",
    "float32": "float32",
    "fp32": "float32",
    "float": "float32",
    "float16": "float16",
    "fp16": "float16",
    "half": "float16",
    "bfloat16": "bfloat16",
    "bf16": "bfloat16",
}


@dataclass(frozen=True)
class Hardware:
    """What the worker found: CUDA availability, device count, bf16 support, accelerate."""

    cuda_available: bool = False
    cuda_count: int = 0
    bf16_supported: bool = False
    accelerate_available: bool = False


@dataclass(frozen=True)
class Placement:
    """How to load the model.

    ``device_map`` is passed to ``from_pretrained`` (``"auto"`` lets accelerate spread layers
    over the GPUs and CPU); when it is None the model is loaded on the CPU and moved to
    ``device``. ``dtype`` is a torch dtype name. ``notes`` explain any fallback.
    """

    device: str
    device_map: str | None
    dtype: str
    notes: tuple[str, ...] = ()


def normalize_dtype(dtype: str) -> str:
    """Map a dtype setting (``auto``, ``fp16``, ``bfloat16``...) to a canonical name."""
    key = dtype.strip().lower().removeprefix("torch.")
    if key not in _DTYPE_ALIASES:
        choices = "auto, float32, float16, bfloat16"
        raise LocalModelError(f"unknown dtype '{dtype}' (use one of {choices})", "format")
    return _DTYPE_ALIASES[key]


def _gpu_dtype(dtype: str, hw: Hardware, notes: list[str]) -> str:
    if dtype == "auto":
        return "bfloat16" if hw.bf16_supported else "float16"
    if dtype == "bfloat16" and not hw.bf16_supported:
        notes.append("this GPU has no bfloat16 support; using float16")
        return "float16"
    return dtype


def resolve_placement(device: str, dtype: str, hw: Hardware) -> Placement:
    """Resolve the ``device`` (``cpu``, ``cuda``, ``cuda:N``, ``auto``) and ``dtype`` settings.

    CPU defaults to float32 (half precision is slow on CPUs); a GPU defaults to bfloat16 where
    supported, else float16. ``auto`` uses every GPU through accelerate's ``device_map="auto"``
    when accelerate is installed, the first GPU otherwise, and the CPU when there is no GPU.
    Asking for a GPU that is not there raises ``LocalModelError``.
    """
    want = device.strip().lower() or "cpu"
    canon = normalize_dtype(dtype)
    notes: list[str] = []
    if want == "cpu":
        return Placement("cpu", None, "float32" if canon == "auto" else canon)
    if want == "auto":
        if not hw.cuda_available or hw.cuda_count < 1:
            return Placement("cpu", None, "float32" if canon == "auto" else canon,
                             ("no CUDA GPU found; running on the CPU",))
        gpu_dtype = _gpu_dtype(canon, hw, notes)
        if hw.accelerate_available:
            return Placement("cuda:0", "auto", gpu_dtype, tuple(notes))
        notes.append("accelerate is not installed; using one GPU")
        return Placement("cuda:0", None, gpu_dtype, tuple(notes))
    m = re.fullmatch(r"cuda(?::(\d+))?", want)
    if m is None:
        raise LocalModelError(f"unknown device '{device}' (use cpu, cuda, cuda:N or auto)",
                              "format")
    if not hw.cuda_available or hw.cuda_count < 1:
        raise LocalModelError(
            f"device '{device}' was requested but no CUDA GPU is available; "
            "set the device to cpu or auto", "device")
    index = int(m.group(1) or 0)
    if index >= hw.cuda_count:
        raise LocalModelError(
            f"device '{device}' was requested but only {hw.cuda_count} GPU(s) exist", "device")
    return Placement(f"cuda:{index}", None, _gpu_dtype(canon, hw, notes), tuple(notes))
