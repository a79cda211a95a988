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
    columns = ("strategy", "servers", "committed", "PV cost", "normal PV", "failure PV",
               "total cost", "levelized/h", "nominal/h", "owned util", "PV saving")
    rows = []
    for name, r in plan.strategies.items():
        if r.capacity is not None:
            servers = str(r.capacity.servers)
            committed = "+".join(f"{v}x{k}" for k, v in r.capacity.committed.items() if v) or "-"
        else:   # a schedule: the most servers online and the most GPUs committed at once
            servers = f"<={r.servers}"
            most = int(r.committed_gpus_by_month.max(initial=0))
            committed = f"<={most}" if most else "-"
        rows.append([name, servers, committed, money(r.pv_cost), money(r.normal_cost_pv),
                     money(r.failure_cost_pv), money(r.total_cost),
                     rate(r.cost_per_useful_gpu_hour), rate(r.cost_per_useful_gpu_hour_nominal),
                     share(r.owned_utilization), money(base - r.pv_cost)])
    # columns as wide as their widest cell (amounts in won run to 15 characters)
    widths = [max(len(c), *(len(row[i]) for row in rows)) + (0 if i == 0 else 2)
              for i, c in enumerate(columns)]

    def line(cells: list[str]) -> str:
        return "".join(c.ljust(w) if i == 0 else c.rjust(w)
                       for i, (c, w) in enumerate(zip(cells, widths)))

    header = line(list(columns))
    lines += [header, "-" * len(header)]
    for (name, *_), row in zip(plan.strategies.items(), rows):
        lines.append(line(row) + (" *" if name == plan.recommendation else ""))
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
