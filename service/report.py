"""Plain-text rendering of a plan for the terminal."""
from __future__ import annotations

import math

from models.plan import Plan

PERIOD_WORD = {"hour": "hourly", "day": "daily", "month": "monthly"}


def money(x: float) -> str:
    return f"{x:,.0f}"


def plan_table(plan: Plan, source: str) -> str:
    s, cal = plan.scenario, plan.calendar
    cur = s.finance.currency
    base = plan.strategies["on_demand"].pv_cost
    lines = [f"{s.name}",
             f"Usage: {source} ({PERIOD_WORD[plan.profile.period]}, {plan.profile.gpu_hours:,.0f} GPU-hours)",
             f"Plan: {cal.months[0]} .. {cal.months[-1]} ({len(cal.months)} months), "
             f"discount rate {s.finance.discount_rate_annual:.1%}, {cur}",
             ""]
    header = (f"{'strategy':<13}{'servers':>8}{'committed':>11}{'PV cost':>15}{'total cost':>15}"
              f"{'per useful GPU-h':>18}{'owned util':>11}{'PV saving':>15}")
    lines += [header, "-" * len(header)]
    for name, r in plan.strategies.items():
        committed = "+".join(f"{v}x{k}" for k, v in r.capacity.committed.items() if v) or "-"
        util = f"{r.owned_utilization:.1%}" if r.owned_utilization is not None else "-"
        mark = " *" if name == plan.recommendation else ""
        per_hour = (f"{r.cost_per_useful_gpu_hour:.4f}"
                    if math.isfinite(r.cost_per_useful_gpu_hour) else "-")
        lines.append(f"{name:<13}{r.capacity.servers:>8}{committed:>11}{money(r.pv_cost):>15}"
                     f"{money(r.total_cost):>15}{per_hour:>18}{util:>11}"
                     f"{money(base - r.pv_cost):>15}{mark}")
    lines += ["", f"Recommended (*): {plan.recommendation}"]
    lines.append(plan.explanation.text)
    if plan.all_warnings:
        lines += ["", "Warnings:"] + [f"- {w.text}" for w in plan.all_warnings]
    return "\n".join(lines)
