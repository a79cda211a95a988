"""``buyrent variance --plan PLAN.json ACTUALS... [--strategy NAME] [--json] [--xlsx OUT.xlsx]
[--lang en|ko]``:
one strategy of a plan document against cloud bills, month by month and year to date (issue
43; the engine is models/variance.py, the bills are read by service/actuals.py).

A refusal (a bill's bad row and column, a month outside the plan, a plan file that is not a
plan document, a strategy it does not hold) is one line on stderr and exit code 2.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from models.owned_actuals import Fleet, fleet_of
from models.refusals import Refusal
from models.variance import VarianceError, variance
from models.variance_fx import PlanMoney
from service.actuals import read_bills
from service.cli.report import cell, strategy_name, width
from service.cli.usage_error import UsageError
from service.i18n import DEFAULT, LANGUAGES, gettext as _, using_locale
from service.i18n.ingest_refusals import refusal
from service.i18n.variance_words import part_label
from service.xlsx.variance_sheet import variance_xlsx_bytes


def add_arguments(_name: str, command: argparse.ArgumentParser) -> None:
    """The command's arguments (service.cli.main adds them when this command runs)."""
    command.add_argument("actuals", nargs="+", help="cloud bills (FOCUS 1.0-1.4, AWS CUR, "
                         "Azure cost details, Google Cloud billing export) and owned fleet "
                         "actuals (the owned actuals CSV template)")
    command.add_argument("--plan", required=True, help="plan document (buyrent plan --json)")
    command.add_argument("--strategy", help="strategy of the plan to hold to (default: the "
                         "recommended one)")
    command.add_argument("--fx-rate", type=positive_rate, metavar="RATE",
                         help="exchange rate actually paid, in the plan's reporting currency "
                         "per unit of its foreign one, for bills in the foreign currency that "
                         "give no amount in the reporting currency (the fx part)")
    command.add_argument("--json", action="store_true", help="print the variance document")
    command.add_argument("--xlsx", metavar="OUT.xlsx", help="also write the Plan vs actual "
                         "workbook: its Variance sheet's formulas recompute every part")
    command.add_argument("--lang", choices=sorted(LANGUAGES), default=DEFAULT,
                         help="language of the table and the refusals (default en)")
    command.set_defaults(func=cmd_variance)


def _plan(path: Path, strategy: str | None, fx_rate: float | None = None
          ) -> tuple[list, str, str, Fleet, PlanMoney]:
    doc, name = read_plan(path, strategy)
    currencies = doc.get("currencies") or {}
    currency = currencies.get("reporting") or "USD"     # every figure of the plan is in it
    monthly = doc["strategies"][name]["monthly"]
    money = PlanMoney(currencies or {"reporting": currency, "fx": None},
                      str(monthly[0]["month"]) if monthly else "", fx_rate)
    return monthly, name, currency, fleet_of(doc), money


def positive_rate(text: str) -> float:
    """A --fx-rate: a finite number above 0."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (value > 0 and value < float("inf")):
        raise argparse.ArgumentTypeError(f"{text}: an exchange rate is a number above 0")
    return value


def read_plan(path: Path, strategy: str | None) -> tuple[dict, str]:
    """A plan document and the name of its strategy ``strategy`` (default: the recommended
    one); a file that is not one, or a strategy it lacks, is a UsageError in the current
    language (also read by service/cli/focus_export.py)."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"{path}: {exc.strerror}") from None
    except (ValueError, UnicodeDecodeError):
        raise UsageError(_("%(path)s: not a JSON file", path=path)) from None
    strategies = doc.get("strategies") if isinstance(doc, dict) else None
    if not isinstance(strategies, dict) or not strategies:
        raise UsageError(_("%(path)s: not a plan document (buyrent plan --json): it has no "
                           "strategies", path=path))
    name = strategy or doc.get("recommendation")
    if name not in strategies or "monthly" not in strategies[name]:
        raise UsageError(_("%(path)s: the plan has no strategy %(name)s; it has %(names)s",
                           path=path, name=name, names=", ".join(strategies)))
    return doc, name


def cmd_variance(args: argparse.Namespace) -> int:
    with using_locale(args.lang):
        monthly, name, currency, fleet, money = _plan(Path(args.plan), args.strategy,
                                                      args.fx_rate)
        try:
            actuals = read_bills(args.actuals, currency, fleet, money)
        except Refusal as exc:
            raise UsageError(refusal(str(exc), getattr(exc, "problems", ()), args.lang)) \
                from None
        except OSError as exc:
            raise UsageError(f"{exc.filename}: {exc.strerror}") from None
        try:
            doc = variance(monthly, actuals)
        except VarianceError as exc:
            raise UsageError(_(exc.template, **exc.values)) from None
        doc = {"strategy": name, "currency": currency, **doc}
        if args.xlsx:
            Path(args.xlsx).write_bytes(variance_xlsx_bytes(
                monthly, actuals, name, currency, Path(args.plan).name, lang=args.lang))
        if args.json:
            print(json.dumps(doc, indent=2, ensure_ascii=False))
        else:
            print(table(doc))
    return 0


def table(doc: dict) -> str:
    """Months and the year to date as columns, the parts and the total as rows."""
    columns = [(m["month"], m) for m in doc["months"]]
    columns.append((_("YTD %(start)s to %(end)s", start=doc["ytd"]["from"],
                      end=doc["ytd"]["to"]), doc["ytd"]))
    names = list(dict.fromkeys(k for _c, e in columns for k in e["parts"]))
    rows = [[_("Variance against %(strategy)s (%(currency)s; + = more spent than planned)",
               strategy=strategy_name(doc["strategy"]), currency=doc["currency"])]]
    lines = [[""] + [c for c, _e in columns],
             [_("Plan")] + [e["plan"] for _c, e in columns],
             [_("Actual")] + [e["actual"] for _c, e in columns]]
    lines += [[part_label(k)] + [e["parts"].get(k, "0.00") for _c, e in columns] for k in names]
    lines.append([_("Total variance")] + [e["total"] for _c, e in columns])
    widths = [max(width(r[i]) for r in lines) for i in range(len(lines[0]))]
    body = ["  ".join(cell(c, w, left=i == 0) for i, (c, w) in enumerate(zip(r, widths)))
            for r in lines]
    return "\n".join(rows[0] + body)
