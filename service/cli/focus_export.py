"""``buyrent focus-export --plan PLAN.json [--strategy NAME] [--version 1.3|1.4]
[--lang en|ko] > owned.csv``: the owned fleet of one strategy of a plan document as a FOCUS
Cost and Usage CSV at the fully loaded internal price per GPU-hour (issue 43, item 1; the
figures are models/owned_focus.py, the CSV service/focus_export.py).

A refusal (a file that is not a plan document, a strategy it does not hold, a strategy with no
owned fleet) is one line on stderr and exit code 2.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from models.owned_focus import OwnedExportError
from service.cli.report import strategy_name
from service.cli.usage_error import UsageError
from service.cli.variance import read_plan
from service.focus_export import VERSIONS, focus_csv
from service.i18n import DEFAULT, LANGUAGES, gettext as _, using_locale


def add_arguments(_name: str, command: argparse.ArgumentParser) -> None:
    """The command's arguments (service.cli.main adds them when this command runs)."""
    command.add_argument("--plan", required=True, help="plan document (buyrent plan --json)")
    command.add_argument("--strategy", help="strategy of the plan (default: the recommended "
                         "one)")
    command.add_argument("--version", choices=VERSIONS, default="1.3",
                         help="FOCUS version of the columns (default 1.3)")
    command.add_argument("--lang", choices=sorted(LANGUAGES), default=DEFAULT,
                         help="language of the refusals (default en)")
    command.set_defaults(func=cmd_focus_export)


def cmd_focus_export(args: argparse.Namespace) -> int:
    with using_locale(args.lang):
        doc, name = read_plan(Path(args.plan), args.strategy)
        try:
            text = focus_csv(doc, name, args.version)
        except OwnedExportError as exc:
            values = dict(exc.values)
            if "strategy" in values:
                values["strategy"] = strategy_name(values["strategy"])
            raise UsageError(_(exc.template, **values)) from None
        sys.stdout.write(text)
    return 0
