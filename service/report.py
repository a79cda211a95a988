"""Plain-text rendering of a plan for the terminal, in the language of ``buyrent --lang``."""
from __future__ import annotations

import math

from models.plan import Plan
from service.i18n import _, formats, sentences
from service.i18n.labels import PERIODS


def money(x: float) -> str:
    return formats.number(x, 0)


def _cell(text: str, width: int, left: bool = False) -> str:
    """Pad to a display width: Hangul takes two terminal columns."""
    shown = sum(2 if ord(ch) >= 0x1100 else 1 for ch in text)
    pad = " " * max(0, width - shown)
    return text + pad if left else pad + text


def plan_table(plan: Plan, source: str) -> str:
    s, cal = plan.scenario, plan.calendar
    cur = s.finance.currency
    base = plan.strategies["on_demand"].pv_cost
    period = plan.profile.period
    lines = [f"{s.name}",
             _("Usage: %(source)s (%(period)s, %(hours)s GPU-hours)", source=source,
               period=_(PERIODS[period]) if period in PERIODS else period,
               hours=formats.number(plan.profile.gpu_hours, 0)),
             _("Plan: %(first)s .. %(last)s (%(count)s months), discount rate %(rate)s, "
               "%(currency)s", first=cal.months[0], last=cal.months[-1], count=len(cal.months),
               rate=formats.percent(s.finance.discount_rate_annual), currency=cur),
             ""]
    heads = [(_("strategy"), 13, True), (_("servers"), 8, False), (_("committed"), 11, False),
             (_("PV cost"), 15, False), (_("total cost"), 15, False),
             (_("per useful GPU-h"), 18, False), (_("owned util"), 11, False),
             (_("PV saving"), 15, False)]
    header = "".join(_cell(text, width, left) for text, width, left in heads)
    lines += [header, "-" * len(header)]
    for name, r in plan.strategies.items():
        committed = "+".join(f"{v}x{k}" for k, v in r.capacity.committed.items() if v) or "-"
        util = formats.percent(r.owned_utilization) if r.owned_utilization is not None else "-"
        mark = " *" if name == plan.recommendation else ""
        per_hour = (formats.number(r.cost_per_useful_gpu_hour, 4)
                    if math.isfinite(r.cost_per_useful_gpu_hour) else "-")
        cells = [name, str(r.capacity.servers), committed, money(r.pv_cost),
                 money(r.total_cost), per_hour, util, money(base - r.pv_cost)]
        lines.append("".join(_cell(text, width, left) for text, (_h, width, left)
                             in zip(cells, heads)) + mark)
    lines += ["", _("Recommended (*): %(strategy)s", strategy=plan.recommendation)]
    explanation = sentences.plan_explanation(plan)
    if explanation:
        lines.append(explanation)
    warnings = sentences.plan_warnings(plan)
    if warnings:
        lines += ["", _("Warnings:")] + [f"- {w}" for w in warnings]
    return "\n".join(lines)
