"""``python -m perfpilot``: the same as the ``perfpilot`` command."""

import sys

from perfpilot.cli import main

sys.exit(main())
