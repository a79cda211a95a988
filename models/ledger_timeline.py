"""A scheduled strategy's capacity timeline against demand, month by month: the chart of its
ledger (models/ledger.py ``Ledger.timelines``).
"""
from __future__ import annotations

import numpy as np

from models.plan_state import PlanState
from models.strategy_result import StrategyResult

QUANTILE = 0.9   # the demand line a capacity timeline is drawn against (the P90 hour)


def demand_lines(ctx: PlanState) -> dict[str, list[float]]:
    """Peak, P90 and average hourly demand of each month, gross of failure overhead.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (sorted demand).

    Returns
    -------
    dict of str to list of float
        ``peak``, ``p90``, ``mean`` [GPUs, (horizon,)].

    Notes
    -----
    peak_m = max_h gross_h, p90_m = the 0.9 quantile of the month's hourly gross demand, mean_m =
    (sum_h gross_h) / hours_m, over the hours h of month m [GPUs].
    """
    table, hours = ctx.tables.gross, ctx.calendar.hours.astype(int)
    width = table.sorted.shape[1]
    p90 = [float(np.quantile(table.sorted[m, width - n:], QUANTILE)) if n else 0.0
           for m, n in enumerate(hours)]
    mean = (table.totals / np.maximum(hours, 1)).tolist()
    return {"peak": table.peak.tolist(), "p90": p90, "mean": mean}


def timeline(ctx: PlanState, r: StrategyResult, demand: dict[str, list[float]]) -> dict:
    """Capacity of a scheduled strategy by month against demand, for its timeline chart.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan.
    r : StrategyResult
        A strategy with a schedule.
    demand : dict
        :func:`demand_lines`.

    Returns
    -------
    dict
        ``months``, ``owned`` (and ``owned_by_type`` for a fleet of server types) and each
        commitment cohort's GPUs (held contracts apart),
        average GPUs on ``spot`` and ``on_demand`` [GPUs of demand], ``servers`` online, the
        ``demand`` lines and their ``quantile``.

    Notes
    -----
    owned_m = sum_i n_i(m) w_i over the server types i, n_i(m) its servers online and w_i the
    capacity per server [GPUs of demand]; spot_m = spot GPU-hours_m / hours_m and on_demand_m
    likewise [GPUs].
    """
    H, hours = ctx.horizon, ctx.calendar.hours
    # stacked by server type (issue 26; the one type ``owned`` of a scenario without types)
    per_server = {k.id: k.per_server for k in ctx.fleet}
    by_type = {k: x[:H] * per_server[k] for k, x in r.servers_online_by_type.items()}
    owned = sum(by_type.values(), np.zeros(H))
    return {"strategy": r.name, "months": list(ctx.calendar.months),
            "owned_by_type": {k: x.tolist() for k, x in by_type.items()},
            "owned": owned.tolist(), "servers": r.servers_online[:H].tolist(),
            "cohorts": timeline_cohorts(ctx, r),
            "spot": (r.spot_gpu_hours_by_month[:H] / hours).tolist(),
            "on_demand": (r.on_demand_gpu_hours_by_month[:H] / hours).tolist(),
            "demand": demand, "quantile": QUANTILE}


def timeline_cohorts(ctx: PlanState, r: StrategyResult) -> list[dict]:
    """Committed GPUs of each cohort by month; cohorts signed in the same month under the same
    offer are one series, contracts of the position are named 'held <id>'.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan.
    r : StrategyResult
        A strategy with a schedule.

    Returns
    -------
    list of dict
        ``name``, ``held``, ``gpus`` [GPUs of demand, (horizon,)], held contracts first.

    Notes
    -----
    series_k(m) = sum of gpus_c x theta_c over the cohorts c of series k active in month m
    (start_c <= m < start_c + term_c), theta_c the cloud's relative throughput [GPUs of demand].
    """
    H, months = ctx.horizon, list(ctx.calendar.months)
    theta = ctx.scenario.on_demand.relative_throughput
    held = set(ctx.position.commitments)
    series: dict[str, np.ndarray] = {}
    is_held: dict[str, bool] = {}
    for c in sorted(r.plan.commitments, key=lambda c: (c not in held, c.start, c.offer)):
        lo, hi = max(c.start, 0), max(min(c.start + c.term, H), 0)
        if hi <= lo:
            continue
        if c in held:
            name = f"held {c.offer}"
        else:
            start = months[c.start] if 0 <= c.start < len(months) else str(c.start)
            name = f"{c.offer} from {start}"
        series.setdefault(name, np.zeros(H))[lo:hi] += c.gpus * theta
        is_held[name] = c in held
    return [{"name": name, "held": is_held[name], "gpus": values.tolist()}
            for name, values in series.items()]
