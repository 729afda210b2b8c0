"""One measuring process for a distributed run: rank 0 measures every rank's samples.

Under ``accelerate launch`` each rank holds its own slice of a GRPO batch. Timing needs quiet
cores, so if every rank timed its own candidates the ranks would time each other's noise. The
ranks hand their work to rank 0 (``all_gather_object``), which measures it all through one
engine (one measuring gate), and hands each rank its results back (``broadcast_object_list``).
With one process nothing is exchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def world() -> tuple[int, int]:
    """This process's rank and the number of processes (0, 1 when not distributed)."""
    try:
        import torch.distributed as dist
    except ImportError:
        return 0, 1
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


def pooled(items: Sequence[T], compute: Callable[[list[T]], list[R]]) -> list[R]:
    """``compute(items)``, run on rank 0 for the items of every rank; each rank gets the
    results of its own items, in order."""
    rank, size = world()
    if size == 1:
        return compute(list(items))
    import torch.distributed as dist

    gathered: list[Any] = [None] * size
    dist.all_gather_object(gathered, list(items))
    box: list[Any] = [None]
    if rank == 0:
        flat = [x for part in gathered for x in part]
        out = compute(flat)
        if len(out) != len(flat):
            raise ValueError(f"measured {len(out)} results for {len(flat)} items")
        chunks, start = [], 0
        for part in gathered:
            chunks.append(out[start:start + len(part)])
            start += len(part)
        box = [chunks]
    dist.broadcast_object_list(box, src=0)
    mine: list[R] = box[0][rank]
    return mine


def leave() -> None:
    """Leave the process group, if this process is in one. A process that exits with the group
    still up can abort at interpreter exit (its gloo threads outlive the interpreter), which
    turns a finished run into a failed one."""
    try:
        import torch.distributed as dist
    except ImportError:
        return
    if dist.is_available() and dist.is_initialized():
        dist.destroy_process_group()
