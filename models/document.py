"""The plan document (design 9.3): plain JSON-ready dicts, the contract of every view."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from models.plan import demand_summary, month_rows
from models.strategies import StrategyResult

if TYPE_CHECKING:
    from models.plan import Plan


def strategy_document(plan: "Plan", r: StrategyResult) -> dict[str, Any]:
    return {
        "servers": int(r.capacity.servers),
        "committed_gpus": {k: int(v) for k, v in r.capacity.committed.items()},
        "uses_spot": r.capacity.use_spot,
        "pv_cost": r.pv_cost,
        "total_cost": r.total_cost,
        "cost_per_useful_gpu_hour": (r.cost_per_useful_gpu_hour
                                     if math.isfinite(r.cost_per_useful_gpu_hour) else None),
        "owned_utilization": r.owned_utilization,
        "gpu_hours": {"owned": float(r.owned_gpu_hours_by_month.sum()),
                      "committed": float(r.committed_gpu_hours_by_month.sum()),
                      "spot": float(r.spot_gpu_hours_by_month.sum()),
                      "on_demand": float(r.on_demand_gpu_hours_by_month.sum()),
                      "overhead": float(r.volumes.overhead.sum())},
        "cost_lines": {name: float(values.sum()) for name, values in r.lines.items()},
        "monthly": month_rows(plan.context, r),
    }


def plan_document(plan: "Plan") -> dict[str, Any]:
    ctx, profile = plan.context, plan.profile
    baseline = plan.strategies["on_demand"].pv_cost
    doc: dict[str, Any] = {
        "scenario": plan.scenario.model_dump(mode="json"),
        "profile": {"hours": int(len(ctx.demand.steady)), "gpu_hours": profile.gpu_hours,
                    "peak_gpus": float(ctx.demand.total.max()), "period": profile.period,
                    "first_period": str(profile.starts[0]), "periods": len(profile.starts),
                    "teams": dict(profile.teams), **demand_summary(ctx.demand)},
        "months": list(ctx.calendar.months),
        "strategies": {name: strategy_document(plan, r) for name, r in plan.strategies.items()},
        "savings_vs_on_demand": {name: baseline - r.pv_cost
                                 for name, r in plan.strategies.items()},
        "recommendation": plan.recommendation,
        "waste": {"failure": ctx.failure_waste.fraction, "spot": ctx.spot_waste.fraction,
                  "spot_feasible": ctx.spot_waste.feasible,
                  "spot_checkpoint_interval_seconds": ctx.spot_waste.interval_seconds
                  if ctx.spot_waste.feasible and ctx.spot_waste.interval_seconds != float("inf")
                  else None},
        "warnings": list(plan.warnings),
    }
    doc.update(plan.extras)
    return doc
