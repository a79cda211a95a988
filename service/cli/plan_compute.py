"""The second half of ``buyrent plan``: the scenario (``--scenario``, or the built-in defaults)
and the plan of the usage ``service.cli.plan`` has read, as the table, the plan document
(``--json``) or a workbook (``--xlsx``). This module imports the scenario model, the engine and
the workbook writer; the command's module hands over to it once the usage file is read, so a
refused usage file never loads them (bench/cli_refusal.py)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pydantic import ValidationError

from models.document import plan_document
from models.messages import Message
from models.plan import compute_plan
from models.refusals import Refusal
from models.scenario import Scenario, scenario_from_json, validation_messages
from models.start import plan_start_month, usage_notes
from service import clock
from service.xlsx.export import WorkbookUnavailable, write_plan_xlsx
from service.ingest import IngestResult
from service.i18n import DEFAULT, _, using_locale
from service.forms.scenario import label_for
from service.i18n.validation import error_message
from service.cli.report import plan_table
from service.cli.quiet import quiet_stdout
from service.i18n.ingest_refusals import refusal
from service.cli.usage_error import UsageError
from service import plan_options


def scenario_problems(exc: ValidationError, lang: str = DEFAULT) -> str:
    """A refused scenario's problems: in English pydantic's lines, in another language each
    field by its schema label and each message through the web form's translation."""
    if lang == DEFAULT:
        return "; ".join(validation_messages(exc))
    with using_locale(lang):
        lines = []
        for item in exc.errors():
            where = ".".join(str(part) for part in item.get("loc", ()))
            said = error_message(item, label_for)
            lines.append(f"{label_for(where)}: {said}" if where else said)
        return "; ".join(lines)


def load_scenario(path: Path | None, lang: str = DEFAULT) -> Scenario:
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
        raise UsageError(f"{path}: " + scenario_problems(exc, lang)) from None


def run(args: argparse.Namespace, ingested: IngestResult, profile_path: Path) -> int:
    """Read the scenario, plan, write the workbook if asked, print the table or the document;
    the exit code (0)."""
    scenario = load_scenario(Path(args.scenario) if args.scenario else None, args.lang)
    try:
        month = clock.current_month()
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    notes = usage_notes(ingested.profile, month,
                        plan_start_month(scenario, ingested.profile, month))
    try:
        with quiet_stdout():    # HiGHS prints from C to fd 1: never into the output
            plan = compute_plan(scenario, ingested.profile,
                                [Message.plain(w) for w in ingested.warnings] + notes,
                                current_month=month,
                                options=plan_options.from_environment())
    except Refusal as exc:
        raise UsageError(f"{profile_path}: {refusal(str(exc), (), args.lang)}") from None
    if args.xlsx:
        try:
            write_plan_xlsx(plan, Path(args.xlsx), args.lang)
        except OSError as exc:
            raise UsageError(f"{args.xlsx}: cannot write the workbook ({exc.strerror})") from None
        except WorkbookUnavailable as exc:
            raise UsageError(f"{args.xlsx}: {exc}") from None
    if args.json:
        json.dump(plan_document(plan), sys.stdout, allow_nan=False)
        sys.stdout.write("\n")
    else:
        with using_locale(args.lang):
            print(plan_table(plan, source=str(profile_path)))
            if args.xlsx:
                print("\n" + _("Workbook written to %(path)s", path=args.xlsx))
    return 0
