"""Plain-text rendering of a plan for the terminal."""
from __future__ import annotations

import math

from models.document import plan_document
from models.plan import Plan

PERIOD_WORD = {"hour": "hourly", "day": "daily", "month": "monthly"}


def money(x: float) -> str:
    return f"{x:,.0f}"


def rate(x: float) -> str:
    return f"{x:.4f}" if x is not None and math.isfinite(x) else "-"


def share(x) -> str:
    return "-" if x is None else f"{x:.1%}"


def plan_table(plan: Plan, source: str) -> str:
    s, cal = plan.scenario, plan.calendar
    cur = s.finance.currency
    doc = plan_document(plan)
    base = plan.strategies["on_demand"].pv_cost
    lines = [f"{s.name}",
             f"Usage: {source} ({PERIOD_WORD[plan.profile.period]}, "
             f"{plan.profile.gpu_hours:,.0f} GPU-hours in the file)",
             f"Plan: {cal.months[0]} .. {cal.months[-1]} ({len(cal.months)} months), "
             f"discount rate {s.finance.discount_rate_annual:.1%}, {cur}, horizon end: "
             f"{s.finance.horizon_end}",
             ""]
    header = (f"{'strategy':<13}{'servers':>8}{'committed':>11}{'PV cost':>14}{'normal PV':>14}"
              f"{'failure PV':>12}{'total cost':>14}{'levelized/h':>12}{'nominal/h':>11}"
              f"{'owned util':>11}{'PV saving':>14}")
    lines += [header, "-" * len(header)]
    for name, r in plan.strategies.items():
        if r.capacity is not None:
            servers = str(r.capacity.servers)
            committed = "+".join(f"{v}x{k}" for k, v in r.capacity.committed.items() if v) or "-"
        else:   # a schedule: the most servers online and the most GPUs committed at once
            servers = f"<={r.servers}"
            most = int(r.committed_gpus_by_month.max(initial=0))
            committed = f"<={most}" if most else "-"
        mark = " *" if name == plan.recommendation else ""
        lines.append(f"{name:<13}{servers:>8}{committed:>11}{money(r.pv_cost):>14}"
                     f"{money(r.normal_cost_pv):>14}{money(r.failure_cost_pv):>12}"
                     f"{money(r.total_cost):>14}{rate(r.cost_per_useful_gpu_hour):>12}"
                     f"{rate(r.cost_per_useful_gpu_hour_nominal):>11}"
                     f"{share(r.owned_utilization):>11}{money(base - r.pv_cost):>14}{mark}")
    lines += ["", "Cost per useful GPU-hour: levelized = PV cost / PV of useful GPU-hours; "
              "nominal = total cost / useful GPU-hours.",
              "", f"Recommended (*): {plan.recommendation}", plan.explanation.text]
    for name in ("staged", "proposed"):
        if doc["strategies"].get(name, {}).get("schedule"):
            lines += [""] + schedule_lines(name, doc["strategies"][name], cur)
    lines += [""] + breakeven_lines(doc)
    if plan.all_warnings:
        lines += ["", "Warnings:"] + [f"- {w.text}" for w in plan.all_warnings]
    return "\n".join(lines)


def schedule_lines(name: str, strategy: dict, currency: str) -> list[str]:
    """The decisions of a scheduled strategy as a table, then its cash by year."""
    out = [f"Schedule of {name} (servers bought take work after the lead time):",
           f"  {'month':<9}{'buy':>6}{'sell':>6}  commit"]
    for d in strategy["schedule"]:
        commits = ", ".join(f"{g} GPUs {k}" for k, g in d["commit"].items()) or "-"
        out.append(f"  {d['month']:<9}{d['buy_servers']:>6}{d['sell_servers']:>6}  {commits}")
    cash = strategy["cash"]["by_year"]
    if cash:
        out.append("  purchases and upfront payments by year [" + currency + "]: "
                   + ", ".join(f"{y} {money(v)}" for y, v in cash.items()))
    return out


def breakeven_lines(doc: dict) -> list[str]:
    be = doc["breakeven"]
    out = ["Breakevens (owned utilization; marginal without data charges, setup fee and "
           "support minimum; all-in with every charge):"]
    for name, value in be["utilization"].items():
        all_in = be["utilization_all_in"].get(name)
        out.append(f"  vs {name:<10} marginal {share(value):>7}  all-in {share(all_in):>7}")
        for basis, figure in (("utilization", value), ("utilization_all_in", all_in)):
            key = f"{basis}.{name}"
            if figure is not None and key in be["directions"]:
                out.append(f"      {basis.replace('_', ' ')}: {be['directions'][key]['text']}")
            elif key in be["reasons"]:
                out.append(f"      {basis.replace('_', ' ')}: {be['reasons'][key]}")
    for key in ("on_demand_price", "server_price"):
        value = be[key]
        out.append(f"  {key.replace('_', ' ')} tie: " + (f"{value:,.4f}" if value is not None
                                                           else f"none ({be['reasons'][key]})"))
    return out
