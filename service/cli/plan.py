"""``buyrent plan [PROFILE] [--busy FILE] [--scenario FILE.json] [--xlsx OUT] [--json]
[--lang en|ko]``: the plan of a usage file, as a table, the plan document or a workbook.

This module reads the inputs and refuses bad ones; it imports what reading needs (the usage
readers, the scenario model) and not the engine. ``service.cli.plan_compute`` plans the read
inputs and prints them: it imports the engine (scipy, the optimizer, the staged search) and
the workbook writer, and is loaded only once the inputs are read, so a refused file is
answered without them (issue 23: 1.7 s of which 0.5 s the engine's imports;
bench/cli_refusal.py).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from pydantic import ValidationError

from models.messages import Message
from models.profile import ProfileError
from models.scenario import Scenario, scenario_from_json, validation_messages
from models.start import plan_start_month, usage_notes
from service import clock
from service.ingest import IngestError, load_usage
from service.i18n import DEFAULT, LANGUAGES
from service.paths import SAMPLE_USAGE
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


def cmd_plan(args: argparse.Namespace) -> int:
    profile_path = Path(args.profile) if args.profile else SAMPLE_USAGE
    scenario = load_scenario(Path(args.scenario) if args.scenario else None)
    try:
        ingested = load_usage(profile_path, busy_path=args.busy)
    except (IngestError, ProfileError) as exc:
        raise UsageError(str(exc) if str(exc).startswith(profile_path.name)
                         else f"{profile_path}: {exc}") from None
    except OSError as exc:
        raise UsageError(f"{profile_path}: {exc.strerror}") from None
    try:
        month = clock.current_month()
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    notes = usage_notes(ingested.profile, month,
                        plan_start_month(scenario, ingested.profile, month))
    # The one import in a function, on purpose: the handoff to the module that computes, which
    # loads the engine and the workbook writer only for inputs that were read (module notes).
    from service.cli import plan_compute
    return plan_compute.run(args, scenario, ingested, profile_path,
                            [Message.plain(w) for w in ingested.warnings] + notes, month)
