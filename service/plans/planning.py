"""The chart data pages draw from a plan (stored by the plan job beside its document), and a
plan computed in this process with them (:class:`ComputedPlan`: what a test or the seeding of a
scenario stores without a job; tests/support/service_plans.py computes one).

Pages never compute a plan: they read plans stored by plan jobs (service.plans.stored,
service.plans.jobs). The plan document itself (design 9.3) is the engine's; this module only adds
what pages chart.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from models.plan_sections import Plan
from service.plans.schedule_charts import schedule_charts


@dataclass
class ComputedPlan:
    """A plan computed in this process: the engine's, its document and its chart data."""

    plan: Plan
    document: dict[str, Any]
    charts: dict[str, Any]


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
