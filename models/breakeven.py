"""Breakevens and the chart data behind them (design 5.2, 9.3).

Screening curves give each source's levelized PV cost per GPU-year of capacity against the
hours a year it is used: owned a_o + b_o h, on demand and spot b h, a commitment a flat a_k.
Where two are linear their crossing is exact; breakeven prices, where a support minimum can make
costs non-linear, are found by bracketed root-finding (scipy brentq).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Optional

import numpy as np
from scipy.optimize import brentq

from models.finance import payback_month
from models.optimize import best_capacity, candidate_grid
from models.strategies import Capacity, PlanContext

if TYPE_CHECKING:
    from models.plan import Plan

HOURS = 8760.0


@dataclass(frozen=True)
class Line:
    """Levelized cost per GPU-year of demand capacity: fixed + per_hour x hours used a year."""

    fixed: float
    per_hour: float
    max_hours: float = HOURS

    def at(self, hours: np.ndarray) -> np.ndarray:
        return self.fixed + self.per_hour * np.asarray(hours)


def screening_lines(ctx: PlanContext) -> dict[str, Line]:
    """Screening curves of every source [currency per GPU-year vs hours used per year]."""
    s, lc, cal = ctx.scenario, candidate_grid(ctx).linear, ctx.calendar
    online = ctx.units.server.online
    hours_pv = float(cal.hours @ ctx.end_factors)
    online_pv = float((cal.hours * online) @ ctx.end_factors)
    o = s.owned
    theta_c = s.on_demand.relative_throughput
    lines: dict[str, Line] = {}
    if online_pv > 0:
        lines["owned"] = Line(
            HOURS * lc.server_pv / (o.gpus_per_server * o.relative_throughput * online_pv),
            float(lc.owned_unit_pv @ (cal.hours * online)) / online_pv,
            HOURS * o.availability)
    lines["on_demand"] = Line(0.0, float(lc.on_demand_unit_pv @ cal.hours) / hours_pv)
    if ctx.spot_waste.feasible:
        lines["spot"] = Line(0.0, float(lc.spot_unit_pv @ cal.hours) / hours_pv
                             / (1.0 - ctx.spot_waste.fraction))
    for offer_id, pv in lc.offer_pv.items():
        lines[offer_id] = Line(HOURS * pv / (theta_c * hours_pv), 0.0)
    return lines


def crossing_hours(a: Line, b: Line) -> Optional[float]:
    """Hours per year at which two screening lines meet, if they meet in (0, max hours]."""
    slope = a.per_hour - b.per_hour
    if abs(slope) < 1e-15:
        return None
    h = (b.fixed - a.fixed) / slope
    limit = min(a.max_hours, b.max_hours)
    return h if 0 < h <= limit + 1e-9 else None


def utilization_breakevens(lines: dict[str, Line]) -> tuple[dict, dict, dict]:
    """Owned vs each cloud option, and each commitment vs on demand [fraction of hours]."""
    owned_vs, commit_vs, reasons = {}, {}, {}
    owned = lines.get("owned")
    for name, line in lines.items():
        if name == "owned":
            continue
        if owned is None:
            owned_vs[name] = None
            reasons[f"utilization.{name}"] = "owned servers never come online in the horizon"
            continue
        h = crossing_hours(owned, line)
        owned_vs[name] = None if h is None else h / HOURS
        if h is None:
            cheaper = owned.at(owned.max_hours) <= line.at(owned.max_hours)
            reasons[f"utilization.{name}"] = (
                f"owned is {'cheaper' if cheaper else 'dearer'} than {name} at every "
                f"achievable utilization (0 to {owned.max_hours / HOURS:.0%})")
    for name, line in lines.items():
        if line.per_hour == 0 and line.fixed > 0:
            h = crossing_hours(line, lines["on_demand"])
            commit_vs[name] = None if h is None else h / HOURS
            if h is None:
                reasons[f"commitment_vs_on_demand.{name}"] = (
                    f"{name} costs more than on demand even when used every hour")
    return owned_vs, commit_vs, reasons


def tie_value(f: Callable[[float], float], x0: float) -> tuple[Optional[float], str]:
    """Root of f near x0: exact when f is linear, else brentq on a bracket; (None, reason)."""
    x1 = x0 * 2 if x0 > 0 else 1.0
    f0, f1 = f(x0), f(x1)
    slope = (f1 - f0) / (x1 - x0)
    if abs(slope) < 1e-12 * max(1.0, abs(f0)):
        return None, "the two plans cost the same amount more or less at any value"
    root = x0 - f0 / slope
    if root >= 0 and abs(f(root)) <= 1e-6 * max(1.0, abs(f0), abs(f1)):
        return root, ""
    grid = np.concatenate([[0.0], x0 * np.geomspace(1e-3, 100, 40)])
    values = [f(x) for x in grid]
    for lo, hi, vlo, vhi in zip(grid, grid[1:], values, values[1:]):
        if vlo == 0:
            return float(lo), ""
        if vlo * vhi < 0:
            return float(brentq(f, lo, hi, xtol=1e-10 * max(1.0, x0))), ""
    return None, f"no crossing between 0 and {100 * x0:,.4g}"


def price_breakevens(ctx: PlanContext, cloud: Capacity) -> tuple[dict, dict]:
    """On-demand price and server price at which the best plan owning servers ties cloud_only."""
    s = ctx.scenario
    try:
        owning, _ = best_capacity(ctx, min_servers=1)
    except ValueError:
        return ({"on_demand_price": None, "server_price": None},
                {"on_demand_price": "no plan with owned servers", "server_price":
                 "no plan with owned servers"})

    def gap(section: str, key: str) -> Callable[[float], float]:
        def f(x: float) -> float:
            priced = ctx.repriced(s.with_changes(**{section: {key: x}}))
            return (priced.evaluate("own", owning).pv_cost
                    - priced.evaluate("cloud", cloud).pv_cost)
        return f

    values, reasons = {}, {}
    for name, section, key, x0 in (
            ("on_demand_price", "on_demand", "price_per_gpu_hour",
             s.on_demand.price_per_gpu_hour),
            ("server_price", "owned", "server_price", s.owned.server_price)):
        root, why = tie_value(gap(section, key), x0)
        values[name] = root
        if root is None:
            reasons[name] = why
    return values, reasons


def load_duration(ctx: PlanContext, capacity: Capacity, points: int = 200) -> dict:
    demand = np.sort(ctx.tables.gross.sorted.ravel())[::-1]
    demand = demand[: ctx.calendar.total_hours]
    idx = np.unique(np.linspace(0, len(demand) - 1, points).round().astype(int))
    committed = float(ctx.committed_capacity(sum(capacity.committed.values()))[0])
    owned = float(ctx.owned_capacity(capacity.servers).max()) if capacity.servers else 0.0
    return {"fraction_of_hours": ((idx + 1) / len(demand)).tolist(),
            "gpus": demand[idx].tolist(),
            "levels": {"committed": committed, "owned": committed + owned}}


def screening_chart(lines: dict[str, Line], points: int = 25) -> dict:
    hours = np.linspace(0, HOURS, points)
    crossings = []
    names = list(lines)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            h = crossing_hours(lines[a], lines[b])
            if h is not None:
                crossings.append({"sources": [a, b], "hours_per_year": h,
                                  "utilization": h / HOURS,
                                  "cost_per_gpu_year": float(lines[a].at(h))})
    return {"hours_per_year": hours.tolist(),
            "curves": {n: line.at(hours).tolist() for n, line in lines.items()},
            "max_hours": {n: line.max_hours for n, line in lines.items()},
            "crossings": crossings}


def breakeven_sections(plan: "Plan") -> dict:
    """The plan document's "breakeven" and "charts" sections."""
    ctx, results = plan.context, plan.strategies
    lines = screening_lines(ctx)
    owned_vs, commit_vs, reasons = utilization_breakevens(lines)
    base = results["on_demand"]
    payback, payback_discounted = {}, {}
    for name in ("optimal", "proposed"):
        if name in results:
            payback[name] = payback_month(results[name].cumulative, base.cumulative)
            payback_discounted[name] = payback_month(results[name].discounted_cumulative,
                                                     base.discounted_cumulative)
        else:
            payback[name] = payback_discounted[name] = None
            reasons[f"payback_month.{name}"] = "no proposed plan was given"
    prices, price_reasons = price_breakevens(ctx, results["cloud_only"].capacity)
    reasons.update(price_reasons)
    chosen = results[plan.recommendation].capacity
    return {
        "breakeven": {"utilization": owned_vs, "commitment_vs_on_demand": commit_vs,
                      "payback_month": payback, "payback_month_discounted": payback_discounted,
                      **prices, "reasons": reasons},
        "charts": {"screening": screening_chart(lines),
                   "load_duration": load_duration(ctx, chosen)},
    }
