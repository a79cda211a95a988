"""Each strategy's entry of the plan document (design 9.3): its monthly rows, capacity,
schedule and holdings, its figures and sentences, and the robust plan's expected entry; figures
for JSON (NaN and infinity as None) and sentences as templates with typed parameters.

Separate from the plan-wide sections (models.section_documents) because one entry is written
per strategy, and the robust plan's paths reuse it for each path.
"""
from __future__ import annotations

import math
from typing import Any, Optional

from models.capacity import Capacity
from models.lines import COST_LINES, CREDIT_LINES
from models.messages import Message
from models.plan_sections import Plan
from models.robust_document import expected_entry, robust_fields
from models.schedule_words import schedule_json
from models.schedules import cash_by_period, purchase_orders
from models.plan_state import PlanState
from models.strategy_result import StrategyResult


def num(x: float) -> Optional[float]:
    """A figure for JSON: NaN and infinity become None.

    Parameters
    ----------
    x : float or None
        The figure.

    Returns
    -------
    float or None
        ``x`` as a float when finite.

    Examples
    --------
    >>> num(2.5), num(float("nan")), num(None)
    (2.5, None, None)
    """
    return float(x) if x is not None and math.isfinite(x) else None


def month_rows(ctx: PlanState, r: StrategyResult) -> list[dict[str, Any]]:
    """The monthly table of a strategy (design 5.1, 9.3).

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (calendar, demand by month).
    r : StrategyResult
        Strategy to tabulate.

    Returns
    -------
    list of dict
        One row per month of the horizon, then per month after it in which payments are still
        owed (``after_horizon``: true): ``hours`` [h], demand and GPU-hours by source and
        overhead [GPU-hours], ``servers_online`` [servers], ``committed_gpus`` [GPUs],
        ``servers_online_by_type`` with server types [servers by type id],
        ``owned_utilization`` [fraction], every cost and credit line, ``total_cost``,
        ``cumulative_cost`` and ``discounted_cumulative_cost`` [currency; costs and credits
        both positive, total = costs - credits].
    """
    rows = []
    cumulative, discounted = r.cumulative, r.discounted_cumulative
    book, H = ctx.book, ctx.horizon
    for m, month in enumerate(book.labels[:len(r.total_by_month)]):
        inside = m < H
        row: dict[str, Any] = {
            "month": month, "after_horizon": not inside, "hours": float(book.hours[m]),
            "demand_gpu_hours": float(ctx.tables.useful_by_month[m]) if inside else 0.0,
            "owned_gpu_hours": float(r.owned_gpu_hours_by_month[m]) if inside else 0.0,
            "committed_gpu_hours": float(r.committed_gpu_hours_by_month[m]) if inside else 0.0,
            "spot_gpu_hours": float(r.spot_gpu_hours_by_month[m]) if inside else 0.0,
            "on_demand_gpu_hours": float(r.on_demand_gpu_hours_by_month[m]) if inside else 0.0,
            "overhead_gpu_hours": float(r.volumes.overhead[m]) if inside else 0.0,
            "servers_online": float(r.servers_online[m]) if inside else 0.0,
            "committed_gpus": float(r.committed_gpus_by_month[m]) if inside else 0.0,
            "owned_utilization": float(r.utilization_by_month[m]) if inside else 0.0,
        }
        if r.servers_online_by_type is not None:   # a fleet of server types (issue 26)
            row["servers_online_by_type"] = {k: float(x[m]) if inside else 0.0
                                             for k, x in r.servers_online_by_type.items()}
        for name in COST_LINES + CREDIT_LINES:
            row[name] = float(r.lines[name][m])
        row["total_cost"] = float(r.total_by_month[m])
        row["cumulative_cost"] = float(cumulative[m])
        row["discounted_cumulative_cost"] = float(discounted[m])
        rows.append(row)
    return rows


def capacity_json(plan: Plan, capacity: Optional[Capacity]) -> dict[str, Any]:
    """A static decision as JSON.

    Parameters
    ----------
    plan : Plan
        The plan (its offers).
    capacity : Capacity or None
        The decision.

    Returns
    -------
    dict
        ``servers`` [servers; by type id with server types], ``committed_gpus`` by offer
        [GPUs] and ``uses_spot``; empty for None.
    """
    if capacity is None:
        return {}
    s = plan.scenario.as_fleet()
    counts = capacity.counts(s)
    return {"servers": {t.id: int(counts.get(t.id, 0)) for t in s.server_types},
            "committed_gpus": {o.id: int(capacity.committed.get(o.id, 0))
                               for o in plan.scenario.commitments},
            "uses_spot": capacity.use_spot}


def schedule_document(plan: Plan, ctx: PlanState, r: StrategyResult) -> dict[str, Any]:
    """A scheduled strategy's decisions, purchase orders and cash by period.

    Parameters
    ----------
    plan : Plan
        Plan holding the offers and the price book.
    ctx : PlanState
        Context of the plan (price book, demand, wastes).
    r : StrategyResult
        A staged or scheduled strategy.

    Returns
    -------
    dict
        ``schedule``, ``purchase_orders`` and ``cash`` [currency] (models/schedules.py), most
        ``servers`` online [servers], most GPUs signed by offer in one decision
        (``committed_gpus``) [GPUs] and ``uses_spot``.
    """
    labels = ctx.book.labels
    return {"schedule": schedule_json(r.schedule),
            "purchase_orders": purchase_orders(ctx.scenario, r.schedule, labels, r, ctx.book),
            "cash": cash_by_period(labels, r, ctx.book), **schedule_holdings(plan, r)}


def schedule_holdings(plan: Plan, r: StrategyResult) -> dict[str, Any]:
    """What a schedule holds at its most.

    Parameters
    ----------
    plan : Plan
        Plan holding the offers.
    r : StrategyResult
        A staged or scheduled strategy.

    Returns
    -------
    dict
        Most ``servers`` online [servers; by type id with server types], most GPUs signed by
        offer in one decision (``committed_gpus``) [GPUs] and ``uses_spot``.

    Notes
    -----
    servers = max_m servers online_m (per type: max_m n_i(m)) [servers]; committed_gpus[o] =
    max_d commit_d[o] over the decisions d [GPUs].
    """
    servers: Any = int(r.servers)
    if r.servers_online_by_type is not None:
        servers = {k: int(x.max(initial=0.0)) for k, x in r.servers_online_by_type.items()}
    return {"servers": servers, "committed_gpus": {
                o.id: int(max((d.commit.get(o.id, 0) for d in r.schedule), default=0))
                for o in plan.scenario.commitments},
            "uses_spot": r.plan.use_spot}


def strategy_document(plan: Plan, ctx: PlanState, r: StrategyResult) -> dict[str, Any]:
    """One strategy of the plan document (design 9.3).

    Parameters
    ----------
    plan : Plan
        Plan the strategy belongs to.
    ctx : PlanState
        Context of the plan (price book, demand, wastes).
    r : StrategyResult
        Strategy to document.

    Returns
    -------
    dict
        Its capacity or schedule; ``pv_cost``, ``normal_cost_pv``, ``failure_cost_pv``,
        ``total_cost`` [currency]; costs per useful GPU-hour, levelized and nominal [currency
        per GPU-hour, None when undefined]; ``owned_utilization`` [fraction]; ``gpu_hours`` by
        source [GPU-hours]; ``cost_lines`` summed over the months [currency]; ``monthly``
        (:func:`month_rows`); with ``profile.job_gpu_hours``, ``cost_per_job`` [currency per
        job].

    Notes
    -----
    gpu_hours[source] = sum_m GPU-hours_m of the source; cost_lines[l] = sum_m l_m [currency];
    cost_per_job: levelized = J x PV / U_pv, nominal = J x total / U, normal_levelized = J x
    normal PV / U_pv, with J = ``profile.job_gpu_hours`` [GPU-hours], U and U_pv the useful
    GPU-hours and their PV [GPU-hours] (None where undefined).
    """
    job = plan.scenario.profile.job_gpu_hours
    out = {
        **(capacity_json(plan, r.capacity) if r.capacity is not None
           else schedule_document(plan, ctx, r)),
        "pv_cost": r.pv_cost,
        "normal_cost_pv": r.normal_cost_pv,
        "failure_cost_pv": r.failure_cost_pv,
        "total_cost": r.total_cost,
        "cost_per_useful_gpu_hour": num(r.cost_per_useful_gpu_hour),
        "cost_per_useful_gpu_hour_nominal": num(r.cost_per_useful_gpu_hour_nominal),
        "owned_utilization": r.owned_utilization,
        "uses_cloud": r.uses_cloud,
        "breaches": [b.to_json() for b in r.breaches],
        "gpu_hours": {"owned": float(r.owned_gpu_hours_by_month.sum()),
                      "committed": float(r.committed_gpu_hours_by_month.sum()),
                      "spot": float(r.spot_gpu_hours_by_month.sum()),
                      "on_demand": float(r.on_demand_gpu_hours_by_month.sum()),
                      "overhead": float(r.volumes.overhead.sum())},
        "cost_lines": {name: float(values.sum()) for name, values in r.lines.items()},
        "monthly": month_rows(ctx, r),
    }
    if job is not None:
        levelized = r.cost_per_useful_gpu_hour
        normal = r.normal_cost_pv / r.useful_pv if r.useful_pv > 0 else math.nan
        out["cost_per_job"] = {"job_gpu_hours": job, "levelized": num(job * levelized),
                               "nominal": num(job * r.cost_per_useful_gpu_hour_nominal),
                               "normal_levelized": num(job * normal)}
    return out


def messages_json(messages: list[Message]) -> list[dict[str, Any]]:
    """Messages in their JSON-ready form.

    Parameters
    ----------
    messages : list of Message
        The sentences.

    Returns
    -------
    list of dict
        :meth:`models.messages.Message.as_json` of each.
    """
    return [m.as_json() for m in messages]


def robust_strategy(plan: Plan, r) -> dict[str, Any]:
    """The robust plan's strategy entry (models/robust_document.py): the expectation over
    the demand paths of each path's schedule costed on its own demand, and the robust
    plan's own figures.

    Parameters
    ----------
    plan : Plan
        The plan.
    r : models.robust.RobustResult
        Its robust plan.

    Returns
    -------
    dict
        A strategy entry (:func:`strategy_document`'s keys; ``schedule`` and
        ``purchase_orders`` the here-and-now decisions) with
        :func:`models.robust_document.robust_fields`.
    """
    results = r.path_results()
    entries = [strategy_document(plan, c, x) for c, x in zip(r.contexts, results)]
    orders = [o for o in entries[0]["purchase_orders"] if o["month"] <= r.decide_now_until]
    return {"schedule": schedule_json(r.common), "purchase_orders": orders,
            **expected_entry(entries, [q.probability for q in r.paths], results),
            **robust_fields(r)}
