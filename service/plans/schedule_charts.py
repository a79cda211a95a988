"""Timeline chart data of scheduled strategies (the staged optimum, a proposed schedule).

Capacity over the plan's months in GPUs of demand (the units of the load-duration chart):
owned servers online, each commitment cohort (held contracts and new signatures apart), and
the average GPUs that ran on spot and on demand, against the month's demand (peak hour, the
P90 hour and the average). Computed once with the plan and cached with its charts.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from models.capacity import CommitmentCohort
from models.plan import Plan
from models.strategies import StrategyResult

SCHEDULED = ("staged", "proposed")
QUANTILE = 0.9          # the demand line a capacity plan is usually sized against


def demand_lines(plan: Plan) -> dict[str, list[float]]:
    """Peak, P90 and average hourly demand of each month [GPUs, gross of failure overhead]."""
    ctx = plan.context
    table, hours = ctx.tables.gross, ctx.calendar.hours.astype(int)
    width = table.sorted.shape[1]
    p90 = [float(np.quantile(table.sorted[m, width - n:], QUANTILE)) if n else 0.0
           for m, n in enumerate(hours)]
    mean = (table.totals / np.maximum(hours, 1)).tolist()
    return {"peak": table.peak.tolist(), "p90": p90, "mean": mean}


def cohort_name(c: CommitmentCohort, held: set, months: list[str]) -> str:
    """'held aws-sp-2026' for a contract of the position, '1y from 2029-01' for a new one."""
    if c in held:
        return f"held {c.offer}"
    start = months[c.start] if 0 <= c.start < len(months) else str(c.start)
    return f"{c.offer} from {start}"


def cohorts(plan: Plan, r: StrategyResult) -> list[dict[str, Any]]:
    """Committed GPUs of each cohort by month (cohorts signed in the same month under the same
    offer are one series)."""
    ctx = plan.context
    H, months = ctx.horizon, list(ctx.calendar.months)
    theta = plan.scenario.on_demand.relative_throughput
    held = set(ctx.position.commitments)
    series: dict[str, np.ndarray] = {}
    is_held: dict[str, bool] = {}
    for c in sorted(r.plan.commitments, key=lambda c: (c not in held, c.start, c.offer)):
        lo, hi = max(c.start, 0), max(min(c.start + c.term, H), 0)
        if hi <= lo:
            continue
        name = cohort_name(c, held, months)
        series.setdefault(name, np.zeros(H))[lo:hi] += c.gpus * theta
        is_held[name] = c in held
    return [{"name": name, "held": is_held[name], "gpus": values.tolist()}
            for name, values in series.items()]


def timeline(plan: Plan, r: StrategyResult, demand: dict[str, list[float]]) -> dict[str, Any]:
    ctx = plan.context
    H = ctx.horizon
    hours = ctx.calendar.hours
    owned = r.servers_online[:H] * ctx.owned_per_server()
    return {"strategy": r.name, "months": list(ctx.calendar.months),
            "owned": owned.tolist(), "servers": r.servers_online[:H].tolist(),
            "cohorts": cohorts(plan, r),
            "spot": (r.spot_gpu_hours_by_month[:H] / hours).tolist(),
            "on_demand": (r.on_demand_gpu_hours_by_month[:H] / hours).tolist(),
            "demand": demand, "quantile": QUANTILE}


def schedule_charts(plan: Plan) -> dict[str, Any]:
    """A timeline for each strategy that is a schedule, by strategy name."""
    names = [n for n in SCHEDULED if n in plan.strategies and plan.strategies[n].schedule]
    if not names:
        return {}
    demand = demand_lines(plan)
    return {name: timeline(plan, plan.strategies[name], demand) for name in names}
