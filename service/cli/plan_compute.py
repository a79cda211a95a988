"""The second half of ``buyrent plan``: the plan of inputs ``service.cli.plan`` has read, as
the table, the plan document (``--json``) or a workbook (``--xlsx``). This module imports the
engine and the workbook writer; the command's module hands over to it once the inputs are read,
so a refused file never loads them (bench/cli_refusal.py)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from models.document import plan_document
from models.messages import Message
from models.plan import compute_plan
from models.profile import ProfileError
from models.scenario import Scenario
from models.strategies import PlanError
from service.xlsx.export import write_plan_xlsx
from service.ingest import IngestResult
from service.i18n import _, using_locale
from service.cli.report import plan_table
from service.cli.usage_error import UsageError


def run(args: argparse.Namespace, scenario: Scenario, ingested: IngestResult,
        profile_path: Path, messages: list[Message], month: str) -> int:
    """Plan, write the workbook if asked, print the table or the document; exit code 0.

    ``messages`` are the usage's warnings and notes; ``month`` the current month."""
    try:
        plan = compute_plan(scenario, ingested.profile, messages, current_month=month)
    except (PlanError, ProfileError) as exc:
        raise UsageError(f"{profile_path}: {exc}") from None
    if args.xlsx:
        try:
            write_plan_xlsx(plan, Path(args.xlsx), args.lang)
        except OSError as exc:
            raise UsageError(f"{args.xlsx}: cannot write the workbook ({exc.strerror})") from None
    if args.json:
        json.dump(plan_document(plan), sys.stdout, allow_nan=False)
        sys.stdout.write("\n")
    else:
        with using_locale(args.lang):
            print(plan_table(plan, source=str(profile_path)))
            if args.xlsx:
                print("\n" + _("Workbook written to %(path)s", path=args.xlsx))
    return 0
