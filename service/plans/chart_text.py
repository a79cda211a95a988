"""Text alternatives of the charts: one summary sentence each and a small data table.

A chart is a picture of numbers; people who cannot see it (screen readers, a printout in black
and white, a reviewer who wants the figure) get the same numbers here. Tables are sampled so
that they stay readable (every 12th month, the crossings, the tornado rows).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from service.i18n import _, formats
from service.i18n.charts import source_label
from service.plans.chart_view import cumulative_lines, cumulative_notes, group_of
from service.i18n.labels import cost_line_label, strategy_label


def percent(value: Any) -> str:
    return formats.percent(value, 1)


def number(value: Any, digits: int = 1) -> str:
    return formats.number(value, digits)


@dataclass
class ChartText:
    summary: str
    head: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)


def label(name: str) -> str:
    return strategy_label(name)


def _yearly(months: list[str]) -> list[int]:
    """Indices of every 12th month and the last one."""
    picks = list(range(11, len(months), 12))
    if not picks or picks[-1] != len(months) - 1:
        picks.append(len(months) - 1)
    return picks


def cumulative(charts: dict, doc: dict) -> ChartText:
    months, curves = charts["months"], charts["cumulative"]
    currency = doc["scenario"]["finance"]["currency"]
    ends = sorted(((values[-1], name) for name, values in curves.items()))
    best = ends[0]
    text = _("Cumulative cost over %(count)s months (%(first)s to %(last)s). Lowest at the end: "
             "%(best)s, %(best_cost)s; highest: %(worst)s, %(worst_cost)s.",
             count=len(months), first=months[0], last=months[-1], best=label(best[1]),
             best_cost=formats.money(best[0], currency), worst=label(ends[-1][1]),
             worst_cost=formats.money(ends[-1][0], currency))
    notes = cumulative_notes(cumulative_lines(curves, doc))
    if notes:
        text = " ".join([text, *notes])
    picks = _yearly(months)
    head = [_("Month")] + [label(n) for n in curves]
    rows = [[months[i]] + [formats.money(curves[n][i], currency) for n in curves] for i in picks]
    return ChartText(text, head, rows)


def by_source(charts: dict, doc: dict) -> ChartText:
    lines = charts["by_source"]["lines"]
    currency = doc["scenario"]["finance"]["currency"]
    totals = sorted(((sum(v), name) for name, v in lines.items()), reverse=True)
    top = ", ".join(f"{cost_line_label(name)} {formats.money(total, currency)}"
                    for total, name in totals[:3])
    text = _("Monthly cost of %(strategy)s by group of cost lines, purchases, upfront payments "
             "and resale in the upper panel; the largest lines over the plan: %(top)s "
             "(credits shown below zero).", strategy=label(charts["by_source"]["strategy"]),
             top=top)
    rows = [[group_of(name), cost_line_label(name), formats.money(total, currency)]
            for total, name in totals]
    return ChartText(text, [_("Group"), _("Cost line"),
                            _("Total over the plan [%(currency)s]", currency=currency)], rows)


def load_duration(charts: dict, doc: dict) -> ChartText:
    ld = charts["load_duration"]
    gpus, fractions = ld["gpus"], ld["fraction_of_hours"]
    offers = doc["scenario"].get("commitments") or ()
    levels = ", ".join(_("%(name)s %(gpus)s GPUs", name=source_label(name, offers),
                         gpus=number(value)) for name, value in (ld.get("levels") or {}).items())
    text = _("Hourly demand sorted from the busiest hour: peak %(peak)s GPUs, median "
             "%(median)s GPUs; chosen capacities: %(levels)s.", peak=number(gpus[0]),
             median=number(_at(fractions, gpus, 0.5)), levels=levels or _("none"))
    rows = [[formats.percent(share, 0), number(_at(fractions, gpus, share))]
            for share in (0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0)]
    return ChartText(text, [_("Share of hours"), _("Demand at least [GPUs]")], rows)


def _at(fractions: list[float], values: list[float], share: float) -> float:
    for f, v in zip(fractions, values):
        if f >= share:
            return v
    return values[-1]


def screening(charts: dict, doc: dict) -> ChartText:
    sc = charts["screening"]
    crossings = sc.get("crossings") or []
    currency = doc["scenario"]["finance"]["currency"]
    if crossings:
        parts = "; ".join(_("%(sources)s at %(utilization)s utilization",
                            sources=_sources(c, doc), utilization=percent(c["utilization"]))
                          for c in crossings)
        text = _("Cost per GPU-year of each source against hours used a year. Breakevens: "
                 "%(parts)s.", parts=parts)
    else:
        text = _("Cost per GPU-year of each source against hours used a year; no two cross.")
    rows = [[_sources(c, doc), number(c["hours_per_year"], 0),
             percent(c["utilization"]), formats.money(c["cost_per_gpu_year"], currency)]
            for c in crossings]
    return ChartText(text, [_("Crossing"), _("Hours per year"), _("Utilization"),
                            _("Cost per GPU-year [%(currency)s]", currency=currency)], rows)


def _sources(crossing: dict, doc: dict) -> str:
    offers = doc["scenario"].get("commitments") or ()
    return " = ".join(source_label(str(s), offers) for s in crossing["sources"])


def tornado(charts: dict, doc: dict) -> Optional[ChartText]:
    u = charts.get("uncertainty")
    if not u:
        return None
    rows = u["tornado"]
    currency = doc["scenario"]["finance"]["currency"]
    widest = _(rows[0]["label"]) if rows else _("none")
    text = _("PV saving of %(judged)s over %(baseline)s is %(saving)s in the base case; the "
             "widest swing comes from %(widest)s.",
             judged=label(u.get("tornado_judged", u["judged"])),
             baseline=label(u["tornado_baseline"]),
             saving=formats.money(u["base_saving"], currency),
             widest=widest)
    return ChartText(text, [_("Assumption"), _("Low value"), _("Saving at low"),
                            _("High value"), _("Saving at high")],
                     [[_(r["label"]), r["low"], formats.money(r["saving_low"], currency), r["high"],
                       formats.money(r["saving_high"], currency)] for r in rows])


def histogram(charts: dict, doc: dict) -> Optional[ChartText]:
    u = charts.get("uncertainty")
    section = doc.get("uncertainty")
    if not u or not section:
        return None
    h = u["histogram"]
    currency = doc["scenario"]["finance"]["currency"]
    text = _("Distribution of the PV saving of %(judged)s over %(baseline)s in %(draws)s draws: "
             "P10 %(p10)s, median %(p50)s, P90 %(p90)s.", judged=label(u["judged"]),
             baseline=label(u["baseline"]), draws=number(section["draws"], 0),
             p10=formats.money(section["saving_p10"], currency),
             p50=formats.money(section["saving_p50"], currency),
             p90=formats.money(section["saving_p90"], currency))
    rows = [[_("%(low)s to %(high)s", low=formats.money(lo, currency),
               high=formats.money(hi, currency)),
             str(n)] for lo, hi, n in zip(h["edges"], h["edges"][1:], h["counts"])]
    return ChartText(text, [_("PV saving"), _("Draws")], rows)


BUILDERS = {"cumulative": cumulative, "by_source": by_source, "load_duration": load_duration,
            "screening": screening, "tornado": tornado, "histogram": histogram}


def chart_texts(charts: dict, doc: dict) -> dict[str, Any]:
    """Every chart's text alternative that this plan has, by chart key."""
    out = {}
    for key, build in BUILDERS.items():
        text = build(charts, doc)
        if text is not None:
            out[key] = text
    return out


def timeline(t: dict, name: str) -> ChartText:
    """The capacity timeline of a schedule: a sentence and the figures of every 12th month."""
    months = t["months"]
    committed = [sum(c["gpus"][i] for c in t["cohorts"]) for i in range(len(months))]
    peak = t["demand"]["peak"]
    q = f"P{t['quantile'] * 100:.0f}"
    most = max(range(len(months)), key=lambda i: committed[i]) if months else 0
    text = _("Capacity of %(strategy)s by month, %(first)s to %(last)s, in GPUs: owned servers "
             "online from %(servers_first)s to %(servers_most)s at most (%(owned_first)s to "
             "%(owned_most)s GPUs), %(cohorts)s commitment cohorts adding up to "
             "%(committed)s GPUs at most (%(committed_month)s); the busiest hour of a month "
             "rises from %(peak_first)s to %(peak_most)s GPUs.",
             strategy=label(name), first=months[0], last=months[-1],
             servers_first=number(t["servers"][0], 0), servers_most=number(max(t["servers"]), 0),
             owned_first=number(t["owned"][0]), owned_most=number(max(t["owned"])),
             cohorts=len(t["cohorts"]), committed=number(committed[most]),
             committed_month=months[most], peak_first=number(peak[0]),
             peak_most=number(max(peak)))
    rows = [[months[i], number(t["servers"][i], 0), number(t["owned"][i]),
             number(committed[i]), number(t["spot"][i]), number(t["on_demand"][i]),
             number(t["demand"]["mean"][i]), number(t["demand"]["p90"][i]),
             number(peak[i])] for i in _yearly(months)]
    return ChartText(text, [_("Month"), _("Servers online"), _("Owned GPUs"),
                            _("Committed GPUs"), _("Spot GPUs (average)"),
                            _("On-demand GPUs (average)"), _("Demand average"),
                            _("Demand %(quantile)s", quantile=q), _("Demand peak")], rows)


def cash_budget(years: list, currency: str, budget: Optional[float]) -> ChartText:
    """Purchases and upfront payments by calendar year against the yearly budget."""
    top = max(years, key=lambda y: y.amount)
    text = _("Purchases and upfront payments by calendar year; the most is %(amount)s in "
             "%(year)s", amount=formats.money(top.amount, currency), year=top.year)
    if budget is not None:
        over = [y.year for y in years if not y.within]
        text += (_("; the yearly budget is %(budget)s, exceeded in %(years)s.",
                   budget=formats.money(budget, currency), years=", ".join(over)) if over else
                 _("; the yearly budget is %(budget)s, never exceeded.",
                   budget=formats.money(budget, currency)))
    else:
        text += _("; no yearly budget is set.")
    return ChartText(text, [], [])
