"""The Plan vs actual page's charts (issue 43): what static/js/app.js draws, as data, from
the variance document the page computes in its request (service.plans.actuals.plan_vs_actual,
stored monthly actuals, exact arithmetic: no solver, no workbook).

- ``actual_cumulative``: per plan month the running plan, the running actual (to the last
  month with actuals) and the running forecast (actuals to date, then the plan) drawn from
  the last actual month on, so that it continues the actual line instead of hiding it; after a
  re-plan, the running forecast re-planned (actuals to date, then the re-plan's months) from
  the same month on.
- ``variance_waterfall``: the year to date as a waterfall: the plan, each part of the table's
  rows (the cents its year-to-date column shows, so the bars are the table's numbers), and the
  actual as the bar Plotly sums them to. The parts add up to the total variance to the cent,
  so the last bar is the plan plus the total variance; the actual in the table is rounded on
  its own and can differ from it by a cent (docs/README-variance.md, "To the cent").

Amounts are in currency units (cents / 100) and the words in the reader's language.
"""
from __future__ import annotations

from decimal import Decimal
from typing import Any

from service.i18n import _, formats
from service.i18n.variance_words import part_label
from service.plans.attribution import AXIS_PAD, AXIS_PAD_FLAT


def _units(cents: int | None) -> float | None:
    return None if cents is None else cents / 100


def cumulative(doc: dict[str, Any], replanned: dict[str, Any] | None = None
               ) -> dict[str, Any]:
    """The cumulative chart's series (see the module's docstring); with a complete re-plan
    (service.plans.replan.replanned_column) also ``replanned``: the running forecast
    re-planned from the last actual month on, over the approved plan's months and the
    re-plan's later ones (where the other lines have no value)."""
    f = doc["forecast"]
    rows = {m["month"]: m for m in f["months"]}
    last = f["last_actual"]
    line: dict[str, float | None] = {}
    if replanned and replanned.get("complete") and replanned.get("cumulative"):
        line = {last: _units(replanned["to_date_cents"])}
        line.update({r["month"]: _units(r["cents"]) for r in replanned["cumulative"]})
    months = sorted(set(rows) | set(line))

    def series(key: str, since: str = "") -> list[float | None]:
        return [_units(rows[m][key]) if m in rows and m >= since else None for m in months]
    out = {"months": months, "plan": series("cumulative_plan_cents"),
           "actual": series("cumulative_actual_cents"),
           "forecast": series("cumulative_forecast_cents", last)}
    if line:
        out["replanned"] = [line.get(m) for m in months]
    return out


def waterfall(doc: dict[str, Any]) -> dict[str, Any]:
    """The year to date's waterfall: labels, values (currency units), Plotly measures, and
    ``cents`` (the same values in whole cents, for a reader that adds them up)."""
    ytd = doc["ytd"]
    plan = int(Decimal(ytd["plan"]) * 100)      # decimal text to the cent: exact
    # the table's rows (service.plans.actuals_views): every part any column names
    names = list(dict.fromkeys(k for e in doc["months"] + [ytd] for k in e["parts"]))
    cents = [plan] + [ytd["parts_cents"].get(n, 0) for n in names]
    end = sum(cents)                   # plan + total variance, what Plotly draws last
    levels = [sum(cents[:k + 1]) / 100 for k in range(len(cents))]
    return {"range": axis_range(levels), "labels": [_("Plan")] + [part_label(n) for n in names] + [_("Actual")],
            "parts": names, "cents": cents + [end],
            "values": [c / 100 for c in cents] + [end / 100],
            "measures": ["absolute"] + ["relative"] * len(names) + ["total"]}


def axis_range(levels: list[float]) -> list[float] | None:
    """The value axis around the levels the bars reach, as the comparison's waterfall does
    (service.plans.attribution.Waterfall.axis_range): a variance of a few percent of the plan
    is a bar a reader sees, not a hairline on an axis from zero; None when zero is close or
    crossed."""
    low, high = min(levels), max(levels)
    pad = max((high - low) * AXIS_PAD, abs(high) * AXIS_PAD_FLAT, abs(low) * AXIS_PAD_FLAT,
              0.01)
    low, high = low - pad, high + pad
    return None if low <= 0 <= high else [low, high]


def plan_vs_actual_charts(doc: dict[str, Any], replanned: dict[str, Any] | None = None
                          ) -> dict[str, Any]:
    """Both charts' data with their words, in the page's language; ``replanned``: the
    page's forecast re-planned (service.plans.replan.replanned_column), drawn as a line of
    its own when complete."""
    currency = doc["currency"]

    def money(cents: int) -> str:        # to the cent, as the page's tables
        return formats.money(Decimal(int(cents)).scaleb(-2), currency, "exact")

    ytd, f = doc["ytd"], doc["forecast"]
    drawn = cumulative(doc, replanned)
    again = ""
    if "replanned" in drawn:
        again = " " + _("Re-planned (revision %(number)s), the whole forecast is %(forecast)s.",
                        number=replanned["revision"].number,
                        forecast=money(replanned["total"]["forecast_cents"]))
    return {
        "cumulative": drawn, "waterfall": waterfall(doc),
        "text": {"cumulative": _("Cumulative spend: actual against plan"),
                 "waterfall": _("Variance year to date %(start)s to %(end)s: from plan to "
                                "actual by part", start=ytd["from"], end=ytd["to"]),
                 "month": _("month"), "cost": _("cost [%(currency)s]", currency=currency),
                 "plan": _("Cumulative plan"), "actual": _("Cumulative actual"),
                 "forecast": _("Cumulative forecast"),
                 "replanned": _("Cumulative forecast re-planned")},
        "summary": {
            "cumulative": _("To %(month)s: actual %(actual)s against a plan of %(plan)s; the "
                            "whole plan's forecast (actuals to date, then the plan) is "
                            "%(forecast)s against %(total)s planned.",
                            month=f["last_actual"],
                            actual=money(f["to_date"]["actual_cents"]),
                            plan=money(f["to_date"]["plan_cents"]),
                            forecast=money(f["total"]["forecast_cents"]),
                            total=money(f["total"]["plan_cents"])) + again,
            "waterfall": _("From the plan's %(plan)s to %(actual)s spent, year to date: each "
                           "bar is a part of the variance (the table below); the parts add up "
                           "to the total variance of %(total)s.",
                           plan=money(round(Decimal(ytd["plan"]) * 100)),
                           actual=money(round(Decimal(ytd["actual"]) * 100)),
                           total=money(ytd["total_cents"]))},
    }
