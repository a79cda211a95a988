"""``buyrent plan [PROFILE] [--busy FILE] [--scenario FILE.json] [--xlsx OUT] [--json]
[--lang en|ko]``: the plan of a usage file, as a table, the plan document or a workbook."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pydantic import ValidationError

from models.document import plan_document
from models.messages import Message
from models.plan import compute_plan
from models.profile import ProfileError
from models.scenario import Scenario, scenario_from_json, validation_messages
from models.start import plan_start_month, usage_notes
from models.strategies import PlanError
from service import clock
from service.xlsx.export import write_plan_xlsx
from service.ingest import IngestError, load_usage
from service.i18n import DEFAULT, LANGUAGES, _, using_locale
from service.i18n.ingest_refusals import refusal
from service.paths import SAMPLE_USAGE
from service.cli.report import plan_table
from service.cli.usage_error import UsageError


def add_arguments(_name: str, plan: argparse.ArgumentParser) -> None:
    """The command's arguments (service.cli.main adds them when this command runs)."""
    plan.add_argument("profile", nargs="?", help="usage file (.csv, .xlsx, or a .zip of a "
                      "usage file and a GPU busy-time file)")
    plan.add_argument("--busy", help="GPU busy-time file beside the usage file (DCGM exporter "
                      "Prometheus text, DCGM CSV or nvidia-smi --query-gpu CSV)")
    plan.add_argument("--scenario", help="scenario JSON file (default: the built-in defaults, "
                      "not the web demo's samples/scenario_h100.json)")
    plan.add_argument("--xlsx", help="also write the Excel plan to this path")
    plan.add_argument("--json", action="store_true", help="print the plan document only")
    plan.add_argument("--lang", choices=sorted(LANGUAGES), default=DEFAULT,
                      help="language of the table, the sentences and the workbook (default en)")
    plan.set_defaults(func=cmd_plan)


def load_scenario(path: Path | None) -> Scenario:
    if path is None:
        return Scenario()
    try:
        text = path.read_text(encoding="utf-8")
        json.loads(text)      # the line and column of broken JSON, as Python reads it
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read the scenario file ({exc})") from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}: line {exc.lineno}, column {exc.colno}: invalid JSON "
                         f"({exc.msg})") from None
    try:
        return scenario_from_json(text)
    except ValidationError as exc:
        raise UsageError(f"{path}: " + "; ".join(validation_messages(exc))) from None


def said(exc: Exception, lang: str) -> str:
    """A refusal of the usage file (by row and column) or of the plan in ``lang``."""
    return refusal(str(exc), getattr(exc, "problems", ()), lang)


def cmd_plan(args: argparse.Namespace) -> int:
    profile_path = Path(args.profile) if args.profile else SAMPLE_USAGE
    scenario = load_scenario(Path(args.scenario) if args.scenario else None)
    try:
        ingested = load_usage(profile_path, busy_path=args.busy)
    except (IngestError, ProfileError) as exc:
        text = said(exc, args.lang)
        raise UsageError(text if str(exc).startswith(profile_path.name)
                         else f"{profile_path}: {text}") from None
    except OSError as exc:
        raise UsageError(f"{profile_path}: {exc.strerror}") from None
    try:
        month = clock.current_month()
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    notes = usage_notes(ingested.profile, month,
                        plan_start_month(scenario, ingested.profile, month))
    try:
        plan = compute_plan(scenario, ingested.profile,
                            [Message.plain(w) for w in ingested.warnings] + notes,
                            current_month=month)
    except (PlanError, ProfileError) as exc:
        raise UsageError(f"{profile_path}: {said(exc, args.lang)}") from None
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
