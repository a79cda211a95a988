"""The recommendation in plain language, generated from the plan's numbers (issue 4)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from models.strategies import StrategyResult

if TYPE_CHECKING:
    from models.plan import Plan

FRAGILE = 0.02


def money(x: float, currency: str) -> str:
    sign = "-" if x < 0 else ""
    x = abs(x)
    symbol = "$" if currency == "USD" else f"{currency} "
    for size, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if x >= size:
            return f"{sign}{symbol}{x / size:.1f}{suffix}"
    return f"{sign}{symbol}{x:,.0f}"


def term_words(months: int) -> str:
    return f"{months // 12} year{'s' if months != 12 else ''}" if months % 12 == 0 \
        else f"{months} months"


def runner_up(plan: "Plan") -> tuple[str, StrategyResult] | None:
    best = plan.strategies[plan.recommendation]
    key = (best.capacity.servers, tuple(sorted(best.capacity.committed.items())))
    others = [(n, r) for n, r in plan.strategies.items()
              if (r.capacity.servers, tuple(sorted(r.capacity.committed.items()))) != key]
    return min(others, key=lambda item: item[1].pv_cost) if others else None


def explanation(plan: "Plan") -> tuple[str, bool]:
    """The recommendation as sentences, and whether it is fragile (runner-up within 2 %)."""
    s, ctx = plan.scenario, plan.context
    cur, name = s.finance.currency, plan.recommendation
    r = plan.strategies[name]
    cap = r.capacity
    parts = []
    if cap.servers:
        g = cap.servers * s.owned.gpus_per_server
        # top of the owned layer, as the load-duration chart of the chosen plan marks it
        top = plan.extras["charts"]["load_duration"]["levels"]["owned"]
        demand = ctx.demand.total
        share = float(np.mean(demand > top - 1e-9)) if demand.size else 0.0
        parts.append(f"Buy {cap.servers} server{'s' if cap.servers != 1 else ''} ({g} GPUs) "
                     f"for the base load that runs more than {share:.0%} of hours")
    for offer in s.commitments:
        gpus = cap.committed.get(offer.id, 0)
        if gpus:
            parts.append(f"commit {gpus} GPUs for {term_words(offer.term_months)} "
                         f"({offer.id}, {offer.payment} upfront)")
    if r.spot_gpu_hours_by_month.sum() > 0:
        parts.append("run interruptible work on spot")
    if r.on_demand_gpu_hours_by_month.sum() > 0:
        parts.append("burst on demand" if parts else "run everything on demand")
    text = "; ".join(parts)
    text = (text[0].upper() + text[1:] + ".") if text else "No capacity is needed."
    base = plan.strategies["on_demand"]
    saving = base.pv_cost - r.pv_cost
    months = len(ctx.calendar.months)
    if name != "on_demand" and base.pv_cost > 0:
        text += (f" PV saving {money(saving, cur)} ({saving / base.pv_cost:.0%}) over "
                 f"{months} months against on demand")
        payback = plan.extras.get("breakeven", {}).get("payback_month", {}).get(name)
        text += f"; pays back in month {payback}." if payback else "."
    fragile = False
    other = runner_up(plan)
    if other and r.pv_cost > 0:
        gap = (other[1].pv_cost - r.pv_cost) / r.pv_cost
        if gap <= FRAGILE:
            fragile = True
            text += (f" The answer is fragile: {other[0]} costs only {gap:.1%} more "
                     f"(PV {money(other[1].pv_cost, cur)}), within the accuracy of the inputs.")
    sw = ctx.spot_waste
    if ctx.demand.interruptible.sum() > 0 and not sw.feasible:
        text += (f" Spot is infeasible for the interruptible work: a gang of "
                 f"{s.spot.nodes_per_job} nodes is interrupted every {sw.mtbi_hours * 60:.1f} "
                 f"minutes on average, so checkpoints, lost work and restarts would waste "
                 f"{sw.fraction:.0%} of billed time (waste >= 100 %).")
    elif ctx.demand.interruptible.sum() > 0 and sw.fraction >= 0.05:
        text += (f" Spot wastes {sw.fraction:.0%} of billed time for gangs of "
                 f"{s.spot.nodes_per_job} nodes (checkpoint every "
                 f"{sw.interval_seconds / 60:.0f} min).")
    return text, fragile
