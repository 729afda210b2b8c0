"""DPA: DPO's loss with each preference pair weighted by its measured runtime gap.

Nichols et al.'s performance alignment weights each (faster, slower) pair by how much faster
the chosen one was. trl's ``DPOTrainer`` averages one loss per pair over the batch; this small
subclass carries each pair's weight (``pair_weight``, the log-speedup gap divided by the mean
gap of the data set, so the weights average 1 and the learning rate keeps its meaning) through
the collator and returns ``mean_i(w_i * loss_i)``, computing each pair's loss with trl's own
code (every loss type and metric of the parent stays as it is). ``perfpilot train dpo`` stays
plain DPO, unweighted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

WEIGHT = "pair_weight"


def normalised_weights(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows with ``pair_weight``: each row's ``weight`` (the log-speedup gap) over the mean
    weight; rows without a positive weight count 1."""
    raw = [max(float(r.get("weight", 1.0) or 0.0), 0.0) for r in rows]
    mean = sum(raw) / len(raw) if raw else 1.0
    out = []
    for r, w in zip(rows, raw, strict=True):
        keep = {k: v for k, v in r.items() if k in ("prompt", "chosen", "rejected")}
        keep[WEIGHT] = w / mean if mean > 0 else 1.0
        out.append(keep)
    return out


class _WeightCollator:
    """The trainer's preference collator, with the rows' weights as one more tensor."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __call__(self, examples: list[dict[str, Any]]) -> dict[str, Any]:
        import torch

        weights = [float(e.get(WEIGHT, 1.0)) for e in examples]
        batch: dict[str, Any] = self.inner([{k: v for k, v in e.items() if k != WEIGHT}
                                            for e in examples])
        batch[WEIGHT] = torch.tensor(weights, dtype=torch.float32)
        return batch


def _pair(inputs: dict[str, Any], i: int, pairs: int) -> dict[str, Any]:
    """The inputs of pair ``i``: rows i and pairs + i of the [chosen; rejected] tensors, row i of
    the per-pair ones."""
    out: dict[str, Any] = {}
    for key, value in inputs.items():
        if hasattr(value, "shape") and value.shape and value.shape[0] == 2 * pairs:
            out[key] = value[[i, pairs + i]]
        elif hasattr(value, "shape") and value.shape and value.shape[0] == pairs:
            out[key] = value[i:i + 1]
        else:
            out[key] = value
    return out


def weighted_dpo_trainer() -> type:
    """The ``DPOTrainer`` subclass (trl is imported here, on first use)."""
    from trl import DPOTrainer

    class WeightedDPOTrainer(DPOTrainer):  # type: ignore[misc]
        """``DPOTrainer`` whose per-pair loss is scaled by the pair's runtime weight."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            inner: Any = getattr(self, "data_collator")  # noqa: B009 - set by the parent
            self.data_collator = _WeightCollator(inner)

        def _set_signature_columns_if_needed(self) -> None:
            super()._set_signature_columns_if_needed()
            columns: list[str] | None = getattr(self, "_signature_columns")  # noqa: B009
            if columns is not None and WEIGHT not in columns:
                self._signature_columns = [*columns, WEIGHT]

        def _compute_loss(self, model: Any, inputs: dict[str, Any],
                          return_outputs: bool) -> Any:
            weights = inputs.pop(WEIGHT, None)
            if weights is None:
                return super()._compute_loss(model, inputs, return_outputs)
            pairs = int(weights.shape[0])
            if pairs == 1:
                got = super()._compute_loss(model, inputs, return_outputs)
                if return_outputs:
                    return (got[0] * weights[0].to(got[0].device), got[1])
                return got * weights[0].to(got.device)
            # One forward per pair: trl's loss is a batch mean, and the weight belongs to
            # each pair's own term.
            total: Any = 0.0
            last: Any = None
            for i in range(pairs):
                got = super()._compute_loss(model, _pair(inputs, i, pairs), return_outputs)
                loss = got[0] if return_outputs else got
                total = total + loss * weights[i].to(loss.device)
                last = got[1] if return_outputs else None
            total = total / pairs
            return (total, last) if return_outputs else total

    return WeightedDPOTrainer
