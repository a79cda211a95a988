"""Chart titles, axis titles and series names in the reader's language.

The chart data of a plan is cached once per revision, language-free; static/js/app.js draws it
with the words it finds under ``text`` (titles, axes) and ``names`` (series keys -> labels),
which this module adds for each page view.
"""
from __future__ import annotations

from typing import Any, Optional

from service.i18n import N_, gettext
from service.i18n.labels import assumption_label, cost_line_label, offer_name, strategy_label

SOURCES = {"owned": N_("owned servers"), "on_demand": N_("on demand"), "spot": N_("spot"),
           "committed": N_("committed"), "committed + owned": N_("committed + owned")}


def source_label(name: str, offers=()) -> str:
    """A source of capacity in words; a commitment offer of ``offers`` (the scenario's) by its
    term ("3-year commitment", not "commitment 3y": issue 39)."""
    if name in SOURCES:
        return gettext(SOURCES[name])
    if any((o.get("id") if isinstance(o, dict) else o.id) == name for o in offers or ()):
        return offer_name(name, offers)
    return gettext("commitment %(offer)s", offer=name)


def plan_chart_text(charts: dict[str, Any], currency: str, offers=()) -> dict[str, Any]:
    """``charts`` with ``text`` and ``names`` for the plan page (``offers``: the scenario's
    commitment offers, named by their terms)."""
    u = charts.get("uncertainty") or {}
    judged = strategy_label(u.get("judged", "optimal"))
    text = {
        "cumulative": gettext("Cumulative cost by strategy"),
        "by_source": gettext("Monthly cost by source: %(strategy)s",
                             strategy=strategy_label(charts["by_source"]["strategy"])),
        "load_duration": gettext("Load-duration curve with chosen capacities"),
        "screening": gettext("Screening curves (cost per GPU-year)"),
        "tornado": gettext("PV saving of %(judged)s over %(baseline)s by assumption",
                           judged=strategy_label(u.get("tornado_judged", u.get("judged",
                                                                               "optimal"))),
                           baseline=strategy_label(u.get("tornado_baseline", "on_demand"))),
        "histogram": gettext("Monte Carlo: PV saving of %(judged)s over %(baseline)s",
                             judged=judged, baseline=strategy_label(u.get("baseline",
                                                                          "cloud_only"))),
        "month": gettext("month"), "cost": gettext("cost [%(currency)s]", currency=currency),
        "fraction_of_hours": gettext("fraction of hours with at least this demand"),
        "gpus_busy": gettext("GPUs busy"), "demand": gettext("demand"),
        "capacity": gettext("%(name)s capacity"),
        "hours_per_year": gettext("hours used per year"),
        "cost_per_gpu_year": gettext("cost per GPU-year [%(currency)s]", currency=currency),
        "breakeven": gettext("breakeven"), "at": gettext("%(sources)s at %(percent)s"),
        "pv_saving": gettext("PV saving [%(currency)s]", currency=currency),
        "low_value": gettext("low value"), "high_value": gettext("high value"),
        "draws": gettext("draws"),
    }
    names: dict[str, str] = {}
    for name in charts.get("cumulative", {}):
        names[f"strategy:{name}"] = strategy_label(name)
    for name in charts["by_source"]["lines"]:
        names[f"line:{name}"] = cost_line_label(name)
    levels = (charts.get("load_duration") or {}).get("levels") or {}
    screening = (charts.get("screening") or {}).get("curves") or {}
    for name in list(levels) + list(screening):
        names[f"source:{name}"] = source_label(name, offers)
    tornado = []
    for row in u.get("tornado") or []:
        tornado.append({**row, "label": assumption_label(row), "unit": gettext(row["unit"])})
    out = {**charts, "text": text, "names": names}
    if u:
        out["uncertainty"] = {**u, "tornado": tornado}
    return out


def usage_chart_text(chart: dict[str, Any], per: Optional[str] = None) -> dict[str, Any]:
    """The upload preview's chart with its words."""
    per_word = {"hour": gettext("hour"), "day": gettext("day"),
                "month": gettext("month")}.get(chart.get("per"), chart.get("per", ""))
    return {**chart, "text": {"title": gettext("GPU-hours per %(period)s", period=per_word),
                              "x": per_word, "y": gettext("GPU-hours"),
                              "title_busy": gettext("GPU-hours per %(period)s: allocated and "
                                                    "busy", period=per_word),
                              "steady": gettext("steady"),
                              "interruptible": gettext("interruptible"),
                              "busy": gettext("busy")}}


def cumulative_chart_text(charts: dict[str, Any], currency: str) -> dict[str, Any]:
    """The live plan's cumulative-cost chart with its words."""
    return {**charts, "text": {"cumulative": gettext("Cumulative cost by strategy"),
                               "month": gettext("month"),
                               "cost": gettext("cost [%(currency)s]", currency=currency)},
            "names": {f"strategy:{name}": strategy_label(name)
                      for name in charts.get("cumulative", {})}}
