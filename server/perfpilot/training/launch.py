"""Where training runs: device and dtype choice, trainer arguments, accelerate launch configs.

One CPU, one GPU or many GPUs: the trainers run under ``accelerate launch``; this module picks
the precision the hardware supports and writes the launch configs (DDP, DeepSpeed ZeRO).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Placement:
    """The device kind and the precision training uses there."""

    device: str  # "cuda" | "cpu"
    dtype: str  # "bf16" | "fp16" | "fp32"
    gpus: int = 0


def choose(prefer: str = "auto", cuda: bool | None = None, bf16: bool | None = None,
           gpus: int | None = None, dtype: str = "auto") -> Placement:
    """Pick the device and dtype: bf16 on GPUs that have it, else fp16 on GPU, fp32 on CPU.

    ``prefer`` is ``auto``, ``cpu`` or ``cuda``; ``dtype`` (``auto``, ``bf16``, ``fp16``,
    ``fp32``) overrides the precision (bf16 where the GPU lacks it is refused); the hardware
    facts default to torch's answer (given explicitly in tests).
    """
    if dtype not in ("auto", "bf16", "fp16", "fp32"):
        raise ValueError(f"unknown dtype {dtype!r} (auto, bf16, fp16, fp32)")
    place = _device(prefer, cuda, bf16, gpus)
    if dtype == "auto":
        return place
    if dtype == "bf16" and place.device == "cuda" and not (bf16 if bf16 is not None
                                                           else _bf16_supported()):
        raise ValueError("--dtype bf16 was asked for, but this GPU does not support it")
    if dtype == "fp16" and place.device == "cpu":
        raise ValueError("--dtype fp16 trains on GPUs only (use bf16 or fp32 on the CPU)")
    return Placement(place.device, dtype, place.gpus)


def _bf16_supported() -> bool:
    import torch

    return bool(torch.cuda.is_available() and torch.cuda.is_bf16_supported())


def _device(prefer: str, cuda: bool | None, bf16: bool | None, gpus: int | None
            ) -> Placement:
    if cuda is None or bf16 is None or gpus is None:
        import torch

        cuda = torch.cuda.is_available() if cuda is None else cuda
        gpus = torch.cuda.device_count() if gpus is None else gpus
        bf16 = (cuda and torch.cuda.is_bf16_supported()) if bf16 is None else bf16
    if prefer == "cuda" and not cuda:
        raise ValueError("--device cuda was asked for, but no CUDA device is available")
    if prefer == "cpu" or not cuda:
        return Placement("cpu", "fp32", 0)
    return Placement("cuda", "bf16" if bf16 else "fp16", gpus)


def trainer_args(place: Placement) -> dict[str, Any]:
    """The TrainingArguments fields that follow from the placement."""
    return {"use_cpu": place.device == "cpu", "bf16": place.dtype == "bf16",
            "fp16": place.dtype == "fp16"}


def accelerate_config(kind: str, processes: int = 1, zero_stage: int = 2,
                      mixed_precision: str = "bf16", grad_accum: int = 1) -> dict[str, Any]:
    """An ``accelerate launch --config_file`` document: ``cpu``, ``ddp`` or ``deepspeed``."""
    base: dict[str, Any] = {"compute_environment": "LOCAL_MACHINE", "machine_rank": 0,
                            "num_machines": 1, "main_training_function": "main",
                            "rdzv_backend": "static", "same_network": True,
                            "tpu_env": [], "tpu_use_cluster": False, "tpu_use_sudo": False}
    if kind == "cpu":
        return {**base, "distributed_type": "MULTI_CPU" if processes > 1 else "NO",
                "num_processes": processes, "use_cpu": True, "mixed_precision": "no"}
    if kind == "ddp":
        return {**base, "distributed_type": "MULTI_GPU" if processes > 1 else "NO",
                "num_processes": processes, "gpu_ids": "all", "use_cpu": False,
                "mixed_precision": mixed_precision}
    if kind == "deepspeed":
        return {**base, "distributed_type": "DEEPSPEED", "num_processes": processes,
                "use_cpu": False, "mixed_precision": mixed_precision,
                "deepspeed_config": {"zero_stage": zero_stage,
                                     "offload_optimizer_device": "none",
                                     "offload_param_device": "none",
                                     "gradient_accumulation_steps": grad_accum,
                                     "zero3_init_flag": zero_stage == 3,
                                     # Lets the main process gather ZeRO-3 shards to save.
                                     "zero3_save_16bit_model": zero_stage == 3}}
    raise ValueError(f"unknown launch kind {kind!r} (cpu, ddp, deepspeed)")


def write_accelerate_config(path: Path, kind: str, processes: int = 1,
                            zero_stage: int = 2, grad_accum: int = 1) -> Path:
    """Write the config as YAML (JSON is valid YAML, so no YAML library is needed)."""
    import json

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(accelerate_config(kind, processes, zero_stage,
                                                      grad_accum=grad_accum), indent=2) + "\n",
                    encoding="utf-8")
    return path
