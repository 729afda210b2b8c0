"""The exit statuses of every ``perfpilot`` command (documented in README.md).

0: done. 1: an unexpected internal error. 2: the command cannot run as asked (a flag, a file, a
configuration or a task set is wrong). 3: a model backend failed (planner or optimizer: the
model, its files or its endpoint; also a failed ``check-endpoint``). 4: ``--write`` wrote
nothing (no rewrite was measured faster, or it was only weakly verified, or the file changed,
moved or became read-only since it was read). 5: ``scan --fail-on regression`` found a changed
function slower than at the base revision beyond its interval. 130: cancelled or interrupted.
"""

from __future__ import annotations

OK = 0
INTERNAL = 1
USAGE = 2
MODEL = 3
WRITE_REFUSED = 4
REGRESSION = 5
CANCELLED = 130
