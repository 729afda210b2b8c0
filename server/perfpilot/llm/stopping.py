"""When a generation should stop early: a stop string, or a model repeating itself.

Shared by the local worker (a stopping criterion on the decoded tail) and the remote client
(on the streamed text), so both backends end a plan at ``[/SUGG]`` and neither spends its
token budget on a loop of identical lines.
"""

from __future__ import annotations

from collections.abc import Sequence

# A unit of up to this many characters repeated this often, over at least this span, is a
# loop: ordinary code and prose never repeat that exactly.
MAX_UNIT_CHARS = 256
MIN_REPEATS = 4
MIN_SPAN_CHARS = 200


def stop_at(text: str, stop: Sequence[str]) -> int:
    """The index where the first stop string begins in ``text``, or -1."""
    cut = -1
    for s in stop:
        i = text.find(s) if s else -1
        if i >= 0 and (cut < 0 or i < cut):
            cut = i
    return cut


def repeating(text: str) -> bool:
    """Whether ``text`` ends in one unit repeated (``MIN_REPEATS`` times or more, over at least
    ``MIN_SPAN_CHARS``): the model is stuck in a loop."""
    for unit in range(1, MAX_UNIT_CHARS + 1):
        times = max(MIN_REPEATS, -(-MIN_SPAN_CHARS // unit))
        span = unit * times
        if len(text) < span:
            if unit * MIN_REPEATS > len(text):
                break
            continue
        tail = text[-unit:]
        if text[-span:] == tail * times:
            return True
    return False


def tail_window() -> int:
    """Characters of the end of a text that ``repeating`` may need to look at."""
    return max(MAX_UNIT_CHARS * MIN_REPEATS, MIN_SPAN_CHARS + MAX_UNIT_CHARS)
