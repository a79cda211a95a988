"""``buyrent``: the command dispatcher (``plan``, ``serve``, ``worker``, ``batch``,
``users``).

Each command lives in its own module, which imports what the command needs at its top; this
module imports the module of the command that runs, and that one only. So ``buyrent plan``
never loads Flask, SQLAlchemy or plotly, and ``buyrent serve`` never loads the plan's table
writer; a refused usage file is answered in well under a second (bench/cli_refusal.py).
"""
from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from service.allocator import tune_allocator
from service.cli.usage_error import UsageError

# command -> (its module, one line of help); the module's add_arguments(name, parser) adds the
# command's arguments and its handler (``func``)
COMMANDS = {
    "plan": ("service.cli.plan", "plan a usage profile (default: the bundled sample)"),
    "serve": ("service.cli.web_commands",
              "run the web service (waitress, or gunicorn with --workers > 1)"),
    "worker": ("service.cli.web_commands", "compute plan jobs (the queue of BUYRENT_QUEUE_URL, "
               "the database of DATABASE_URL)"),
    "batch": ("service.cli.batch", "plan a folder of scenarios or a parameter sweep on the "
              "workers; one summary table (CSV and XLSX)"),
    "users": ("service.cli.web_commands", "manage users and API tokens"),
    "variance": ("service.cli.variance", "one strategy of a plan document against cloud "
                 "bills: variance by month and year to date, in parts"),
    "focus-export": ("service.cli.focus_export", "the owned fleet of one strategy of a plan "
                     "document as FOCUS 1.3 or 1.4 rows at the fully loaded internal price "
                     "per GPU-hour"),
}


def build_parser(argv: Sequence[str]) -> argparse.ArgumentParser:
    """Every command named, the arguments of the one ``argv`` asks for (its module imported)."""
    parser = argparse.ArgumentParser(prog="buyrent", description="Buy-vs-rent plans for GPU "
                                     "compute: owned servers, commitments, spot, on demand.")
    sub = parser.add_subparsers(dest="command", required=True)
    chosen = next((arg for arg in argv if not arg.startswith("-")), None)
    for name, (module, help_text) in COMMANDS.items():
        command = sub.add_parser(name, help=help_text, description=help_text)
        if name == chosen:
            importlib.import_module(module).add_arguments(name, command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    tune_allocator()
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(argv).parse_args(argv)
    try:
        return args.func(args)
    except UsageError as exc:
        print(f"buyrent: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `buyrent plan --json | head` is not an error
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
