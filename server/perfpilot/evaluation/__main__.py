"""``python -m perfpilot.evaluation TASKS_DIR ...``: the ``eval`` command on its own."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys

from perfpilot.evaluation.cli import cmd_eval, configure_parser
from perfpilot.progress import Cancelled


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments and run the evaluation."""
    parser = argparse.ArgumentParser(prog="perfpilot eval")
    parser.add_argument("-v", "--verbose", action="store_true", help="log to stderr")
    configure_parser(parser)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    try:
        return asyncio.run(cmd_eval(args))
    except (Cancelled, KeyboardInterrupt):
        print("perfpilot eval: interrupted; finished tasks are stored, run again to resume",
              file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
