"""The plan-wide sections of the plan document (design 9.3): the breakevens, the uncertainty
(tornado and Monte Carlo), the profile with the demand as laid over the plan, and the
currencies.

Separate from the strategies' entries (models.strategy_document): one of each per plan, read
from the plan's typed sections rather than from one strategy.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from models.capacity import Capacity
from models.document_rules import DISTRIBUTION_NOTE
from models.plan_sections import Plan
from models.plan_state import PlanState
from models.strategy_document import capacity_json, schedule_holdings
from models.uncertainty import UncertaintySection


def demand_summary(ctx: PlanState) -> dict[str, float]:
    """The demand as laid over the plan, for the profile section of the document.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (demand and tables).

    Returns
    -------
    dict
        ``plan_hours`` [h], ``plan_gpu_hours`` and ``plan_gross_gpu_hours`` (with failure
        overhead) [GPU-hours], ``plan_peak_gpus`` [GPUs], ``plan_interruptible_share``
        [fraction], ``months_with_no_work`` [months].

    Notes
    -----
    plan_gpu_hours = sum_h d_h, plan_peak_gpus = max_h d_h, plan_interruptible_share = sum_h
    interruptible_h / sum_h d_h (0 without demand), plan_gross_gpu_hours = sum_m gross_m,
    months_with_no_work = #{m : gross_m <= 0}, with d_h = steady_h + interruptible_h [GPUs].
    """
    total = ctx.demand.total
    return {"plan_hours": int(ctx.calendar.total_hours),
            "plan_gpu_hours": float(total.sum()),
            "plan_peak_gpus": float(total.max()) if total.size else 0.0,
            "plan_interruptible_share": float(ctx.demand.interruptible.sum() / total.sum())
            if total.sum() > 0 else 0.0,
            "plan_gross_gpu_hours": float(ctx.tables.gross.totals.sum()),
            "months_with_no_work": int(np.sum(ctx.tables.gross.totals <= 0))}


def breakeven_document(plan: Plan) -> dict[str, Any]:
    """The breakeven section of the plan document (design 5.2).

    Parameters
    ----------
    plan : Plan
        Plan with its breakeven section.

    Returns
    -------
    dict
        Marginal and all-in utilization breakevens [fraction of a year's hours], payback months
        (nominal and discounted, 1-based) [months], price ties [currency per GPU-hour for on
        demand, currency per server], each breakeven's direction, the reasons a breakeven is
        missing (English and as messages) and the basis of each utilization figure.
    """
    b = plan.breakeven
    return {"utilization": b.utilization, "utilization_all_in": b.utilization_all_in,
            "commitment_vs_on_demand": b.commitment_vs_on_demand,
            "payback_month": b.payback_month,
            "payback_month_discounted": b.payback_month_discounted,
            "on_demand_price": b.on_demand_price, "server_price": b.server_price,
            "directions": {k: d.as_json() for k, d in b.directions.items()},
            "reasons": {k: m.text for k, m in b.reasons.items()},
            "reason_messages": {k: m.as_json() for k, m in b.reasons.items()},
            "basis": {"utilization": "marginal", "utilization_all_in": "all-in"}}


def uncertainty_document(plan: Plan, u: UncertaintySection) -> dict[str, Any]:
    """The uncertainty section of the plan document (design 5.4).

    Parameters
    ----------
    plan : Plan
        Plan (its offers, for the capacities).
    u : UncertaintySection
        Tornado and Monte Carlo results.

    Returns
    -------
    dict
        Draws and seed, the judged and baseline plans (the tornado judges the same two:
        ``tornado_judged``, ``tornado_baseline``), whether the judged plan is the
        recommendation, ``deterministic_saving`` and the saving percentiles [currency; > 0: the
        judged plan is cheaper], ``deterministic_note`` when the former lies outside P10 to P90
        (and its message), the distribution note, ``probability_beats_cloud_only`` of each plan
        the draws judge [fraction], regret, the proposed and staged results when present, and
        the tornado.
    """
    note = u.deterministic_note
    beats = {u.judged: u.summary["probability_buy_cheaper"]}
    if u.staged:
        beats["staged"] = u.staged["probability_beats_cloud_only"]
    if u.proposed:
        beats["proposed"] = u.proposed["probability_buy_cheaper"]
    return {"draws": u.draws, "seed": u.seed, "judged": u.judged,
            "judged_plan": judged_json(plan, u.judged, u.judged_capacity),
            "judged_is_recommended": u.judged_is_recommended,
            "baseline": u.baseline, "baseline_plan": capacity_json(plan, u.baseline_capacity),
            "deterministic_saving": u.deterministic_saving, **u.summary,
            "deterministic_note": note.text if note else None,
            "deterministic_note_message": note.as_json() if note else None,
            "distribution_note": DISTRIBUTION_NOTE,
            "probability_beats_cloud_only": beats,
            "regret": u.regret, **({"proposed": u.proposed} if u.proposed else {}),
            **({"staged": u.staged} if u.staged else {}),
            "tornado_judged": u.judged, "tornado_baseline": u.tornado_baseline,
            "tornado": u.tornado}


def judged_json(plan: Plan, name: str, capacity) -> dict[str, Any]:
    """The plan the uncertainty section judges, as JSON.

    Parameters
    ----------
    plan : Plan
        The plan (its offers and strategies).
    name : str
        Strategy name, or ``best_with_servers``.
    capacity : Capacity or CapacityPlan
        Its static capacity, or the cohorts of its schedule.

    Returns
    -------
    dict
        :func:`capacity_json` of a static capacity; for a schedule, the most ``servers``
        online [servers], the most GPUs signed by offer in one decision [GPUs], ``uses_spot``
        and ``schedule``: true.
    """
    if isinstance(capacity, Capacity):
        return capacity_json(plan, capacity)
    return {**schedule_holdings(plan, plan.strategies[name]), "schedule": True}


def profile_document(plan: Plan, ctx: PlanState) -> dict[str, Any]:
    """The usage as read from the file (``file_*``) and as laid over the plan (``plan_*``).

    Parameters
    ----------
    plan : Plan
        Plan with its usage.
    ctx : PlanState
        Context of the plan (demand and tables).

    Returns
    -------
    dict
        ``period``, ``file_first_period``, ``file_periods``, ``file_gpu_hours`` [GPU-hours],
        ``file_peak_gpus_per_period_hour`` [GPUs], ``teams`` and the plan's demand summary
        (:func:`demand_summary`).

    Notes
    -----
    file_peak_gpus_per_period_hour = max_p (steady_p + interruptible_p) / hours_p [GPUs], over the
    file's periods p; file_gpu_hours = :attr:`models.profile.UsageProfile.gpu_hours`.
    """
    p = plan.profile
    total = p.steady + p.interruptible
    hours = p.hours()
    return {"period": p.period, "file_first_period": str(p.starts[0]),
            "file_periods": int(len(p.starts)), "file_gpu_hours": p.gpu_hours,
            "file_peak_gpus_per_period_hour": float((total / hours).max()),
            "teams": dict(p.teams), **demand_summary(ctx)}


def currencies_document(s) -> dict[str, Any]:
    """The reporting currency, each market's, and the rate that converts.

    Parameters
    ----------
    s : Scenario
        Scenario of the plan.

    Returns
    -------
    dict
        ``reporting``, ``owned`` and ``cloud`` ISO 4217 codes, and ``fx`` (``foreign``,
        ``rate`` [reporting currency per foreign unit], ``trend_annual`` [fraction per year],
        ``as_of``), None for a plan in one currency. Every figure of the document is in the
        reporting currency.
    """
    foreign = s.foreign_currency()
    return {"reporting": s.finance.currency, "owned": s.market_currency("owned"),
            "cloud": s.market_currency("cloud"),
            "fx": None if foreign is None else {
                "foreign": foreign, "rate": s.fx.rate, "trend_annual": s.fx.trend_annual,
                "as_of": s.fx.as_of}}
