"""A plan computed in this process (the CLI, tests, the job's child) and the chart data pages
draw from a plan.

Pages never call :func:`plan_for`: they read plans stored by plan jobs (service.plans.stored,
service.plans.jobs). The plan document itself (design 9.3) is the engine's; this module only adds
what pages chart.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np

from models.messages import Message
from models.plan import Plan, compute_plan
from models.plan_options import PlanOptions
from models.refusals import Refusal
from models.scenario import Scenario
from models.start import plan_start_month, usage_notes
from service.plans.schedule_charts import schedule_charts
from service import clock
from service.ingest import read_usage


@dataclass
class PlanResult:
    plan: Plan
    document: dict[str, Any]
    charts: dict[str, Any]


def _nothing(_phase: str) -> None:
    pass


def plan_for(scenario: Scenario, data: bytes, filename: str,
             progress: Callable[[str], None] = _nothing,
             current_month: Optional[str] = None,
             options: Optional[PlanOptions] = None) -> PlanResult:
    """The plan of a scenario on a usage file; ``progress`` hears each phase.

    With a listener and an uncertainty section, the strategies are planned once without it
    first ("planning"), then the whole plan ("uncertainty"): the phase a person waits on is
    then true, for the price of one plan without draws (a fifth of the sample's full plan).
    ``current_month`` is the month the plan takes as today's (service.clock; today's when
    None); the usage's notes (short, old: models.start.usage_notes) join its warnings;
    ``options`` go to the engine (models/plan_options.py; the defaults when None).
    """
    month = current_month or clock.current_month()
    try:
        progress("reading")
        ingested = read_usage(data, filename)
        progress("planning")
        if progress is not _nothing and scenario.uncertainty.draws > 0:
            compute_plan(scenario.with_changes(uncertainty={"draws": 0}), ingested.profile,
                         current_month=month, options=options)
            progress("uncertainty")
        notes = usage_notes(ingested.profile, month,
                            plan_start_month(scenario, ingested.profile, month))
        plan = compute_plan(scenario, ingested.profile,
                            [Message.plain(w) for w in ingested.warnings] + notes,
                            current_month=month, options=options)
    except Refusal:          # the usage or the scenario: said where it is shown
        progress("failed")
        raise
    document = plan.document
    json.dumps(document, allow_nan=False)  # the document must be strict JSON
    return PlanResult(plan, document, chart_data(plan, document))


def chart_data(plan: Plan, doc: dict[str, Any]) -> dict[str, Any]:
    """Everything the plan page charts, in plain lists."""
    months = doc["months"]
    strategies = doc["strategies"]
    recommended = doc["recommendation"]
    cumulative = {name: [row["cumulative_cost"] for row in s["monthly"]]
                  for name, s in strategies.items()}
    lines = {}
    for name in next(iter(strategies.values()))["cost_lines"]:
        values = [row.get(name, 0.0) for row in strategies[recommended]["monthly"]]
        if any(abs(v) > 1e-9 for v in values):
            lines[name] = [-v if name in ("resale_credit", "tax_shield") else v for v in values]
    return {
        "months": months,
        "cumulative": cumulative,
        "by_source": {"strategy": recommended, "lines": lines},
        "load_duration": doc["charts"]["load_duration"],
        "screening": doc["charts"]["screening"],
        "uncertainty": uncertainty_chart(doc),
        "schedules": schedule_charts(plan.ledger),
    }


def uncertainty_chart(doc: dict[str, Any]) -> dict[str, Any] | None:
    """Tornado rows (bars from the base-case saving) and the Monte Carlo histogram."""
    section = doc.get("uncertainty")
    if not section:
        return None
    tornado_judged = section.get("tornado_judged", "optimal")
    if tornado_judged not in doc["strategies"]:   # best_with_servers: the Monte Carlo's plan
        base = section["deterministic_saving"]
    else:
        base = (doc["strategies"][section.get("tornado_baseline", "on_demand")]["pv_cost"]
                - doc["strategies"][tornado_judged]["pv_cost"])
    return {"tornado": [{"label": row["label"], "unit": row["unit"],
                         **({"server_type": row["server_type"]} if "server_type" in row else {}),
                         "low": f"{row['low']:.4g}", "high": f"{row['high']:.4g}",
                         "saving_low": row["saving_low"], "saving_high": row["saving_high"]}
                        for row in section["tornado"]],
            "base_saving": base,
            "tornado_baseline": section.get("tornado_baseline", "on_demand"),
            "tornado_judged": tornado_judged,
            "histogram": section["histogram"], "judged": section.get("judged", "optimal"),
            "baseline": section.get("baseline", "cloud_only")}


def profile_chart(profile) -> dict[str, Any]:
    """GPU-hours per period of an uploaded profile (daily sums when hourly, for the preview)."""
    starts = profile.starts
    total = profile.steady + profile.interruptible
    busy = getattr(profile, "busy", None)          # busy GPU-hours, NaN where not measured
    if profile.period == "hour" and len(total) > 24 * 14:
        days = starts.astype("datetime64[D]")
        keys, position = np.unique(days, return_inverse=True)
        out = {"x": [str(k) for k in keys],
               "steady": np.bincount(position, profile.steady).tolist(),
               "interruptible": np.bincount(position, profile.interruptible).tolist(),
               "per": "day"}
        if busy is not None:
            measured = np.bincount(position, ~np.isnan(busy)) > 0
            out["busy"] = [v if m else None for v, m in zip(
                np.bincount(position, np.nan_to_num(busy)).tolist(), measured)]
        return out
    out = {"x": [str(s) for s in starts], "steady": profile.steady.tolist(),
           "interruptible": profile.interruptible.tolist(), "per": profile.period}
    if busy is not None:
        out["busy"] = [None if np.isnan(v) else float(v) for v in busy]
    return out
