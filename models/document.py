"""The plan document (design 9.3): plain JSON-ready dicts, the contract of every view.

Figures keep the engine's precision (views round at the edge). Sentences appear twice: as
English text, and as ``*_messages`` (template and typed parameters) for views in other
languages (models/messages.py). This module assembles the document from its parts: each
strategy's entry (models.strategy_document), the plan-wide sections
(models.section_documents) and the rules in words (models.document_rules), over the plan's
typed sections (models.plan_sections).
"""
from __future__ import annotations

from typing import Any

from models.document_rules import RULES
from models.plan_sections import Plan
from models.scenario import scenario_document
from models.section_documents import (breakeven_document, currencies_document, profile_document,
                                      uncertainty_document)
from models.server_counts import servers_bought, servers_held
from models.plan_state import PlanState
from models.strategy_document import messages_json, num, robust_strategy, strategy_document


def build_document(plan: Plan, ctx: PlanState) -> dict[str, Any]:
    """The plan document (design 9.3): plain JSON-ready dicts, the contract of every view.

    Parameters
    ----------
    plan : Plan
        The computed plan.
    ctx : PlanState
        Context of the plan (price book, demand, wastes).

    Returns
    -------
    dict
        ``scenario``, ``profile``, ``months``, ``currencies``, ``months_after_horizon``,
        ``rules``, ``strategies`` (each with ``servers_bought`` and ``servers_held``: what
        "servers" means on every card, table and sheet, models/server_counts.py),
        ``savings_vs_on_demand`` (on demand's PV cost minus each
        strategy's [currency]; > 0 when the strategy is cheaper), ``savings_vs_cloud_only``
        (the same against the best cloud-only plan), ``recommendation``, ``waste``
        [fraction of billed time], ``warnings``, ``breakeven``, ``charts``, ``explanation``,
        ``fragile``, ``stage`` (what the plan holds so far: models.plan.STAGES) and, when
        computed, ``uncertainty``. A robust plan (issue 27) is ``strategies.robust``
        (:func:`robust_strategy`); it is never the recommendation (it plans for several
        demands, the others for one), and its savings compare it with on demand and the
        cloud-only plan held fixed over the same demand paths.

    Notes
    -----
    savings_vs_on_demand[s] = PV(on_demand) - PV(s) and savings_vs_cloud_only[s] = PV(cloud_only) -
    PV(s) [currency]; for the robust plan the baselines are their expected PVs held fixed over the
    same demand paths.
    """
    baseline = plan.strategies["on_demand"].pv_cost
    cloud = plan.strategies["cloud_only"].pv_cost
    doc: dict[str, Any] = {
        "scenario": scenario_document(plan.scenario),
        "profile": profile_document(plan, ctx),
        "months": list(ctx.calendar.months),
        "currencies": currencies_document(plan.scenario),
        "months_after_horizon": list(ctx.book.labels[ctx.horizon:]),
        "rules": {"horizon_end": plan.scenario.finance.horizon_end,
                  "horizon_end_text": RULES["horizon_end"][plan.scenario.finance.horizon_end],
                  **{k: v for k, v in RULES.items() if k != "horizon_end"}},
        "strategies": {name: {**strategy_document(plan, ctx, r),
                              "servers_bought": servers_bought(ctx.scenario, r),
                              "servers_held": servers_held(ctx)}
                       for name, r in plan.strategies.items()},
        "savings_vs_on_demand": {name: baseline - r.pv_cost
                                 for name, r in plan.strategies.items()},
        "savings_vs_cloud_only": {name: cloud - r.pv_cost
                                  for name, r in plan.strategies.items()},
        "recommendation": plan.recommendation,
        "waste": {"failure": ctx.failure_waste.fraction, "spot": ctx.spot_waste.fraction,
                  "spot_feasible": ctx.spot_waste.feasible,
                  "spot_checkpoint_interval_seconds": num(ctx.spot_waste.interval_seconds)
                  if ctx.spot_waste.feasible else None},
        "warnings": [m.text for m in plan.all_warnings],
        "warning_messages": messages_json(plan.all_warnings),
        "breakeven": breakeven_document(plan),
        "charts": {"screening": plan.charts.screening,
                   "load_duration": plan.charts.load_duration},
        "explanation": plan.explanation.text,
        "explanation_messages": messages_json(plan.explanation.parts),
        "fragile": plan.explanation.fragile,
        "stage": plan.stage,
    }
    if plan.uncertainty is not None:
        doc["uncertainty"] = uncertainty_document(plan, plan.uncertainty)
    if plan.robust is not None:      # issue 27: against the static plans over the same paths
        r = plan.robust
        doc["strategies"]["robust"] = robust_strategy(plan, r)
        for key, name in (("savings_vs_on_demand", "on_demand"),
                          ("savings_vs_cloud_only", "cloud_only")):
            if name in r.held_fixed:
                doc[key]["robust"] = r.held_fixed[name] - doc["strategies"]["robust"]["pv_cost"]
    return doc


def plan_document(plan: Plan) -> dict[str, Any]:
    """The plan document of a computed plan (built with it by models.plan.Planner).

    Parameters
    ----------
    plan : Plan
        The computed plan.

    Returns
    -------
    dict
        The document (:func:`build_document`).
    """
    return plan.document
