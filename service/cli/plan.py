"""``buyrent plan [PROFILE] [--busy FILE] [--scenario FILE.json] [--xlsx OUT] [--json]
[--lang en|ko]``: the plan of a usage file, as a table, the plan document or a workbook.

This module reads the usage file and refuses a bad one; it imports what reading needs (the
usage readers: numpy, pandas) and neither pydantic nor the engine. ``service.cli.plan_compute``
reads the scenario, plans and prints: it imports the scenario model, the engine (scipy, the
optimizer, the staged search) and the workbook writer, and is loaded only once the usage file
is read, so a refused usage file is answered without them (issue 23: 1.68 s before, of which
the scenario model and the engine were about 0.6 s of imports; bench/cli_refusal.py).
"""
from __future__ import annotations

import argparse
from pathlib import Path

from models.refusals import Refusal
from service.ingest import load_usage
from service.i18n import DEFAULT, LANGUAGES
from service.i18n.ingest_refusals import refusal
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


def said(exc: Exception, lang: str) -> str:
    """A refusal of the usage file (by row and column) or of the plan in ``lang``."""
    return refusal(str(exc), getattr(exc, "problems", ()), lang)


def cmd_plan(args: argparse.Namespace) -> int:
    profile_path = Path(args.profile) if args.profile else SAMPLE_USAGE
    try:
        ingested = load_usage(profile_path, busy_path=args.busy)
    except Refusal as exc:
        text = said(exc, args.lang)
        raise UsageError(text if str(exc).startswith(profile_path.name)
                         else f"{profile_path}: {text}") from None
    except OSError as exc:
        raise UsageError(f"{profile_path}: {exc.strerror}") from None
    # The one import in a function, on purpose: the handoff to the module that reads the
    # scenario and computes, which loads pydantic, the engine and the workbook writer only for
    # a usage file that was read (module notes).
    from service.cli import plan_compute
    return plan_compute.run(args, ingested, profile_path)
