"""compute_plan: scenario + usage profile -> every strategy, breakevens, recommendation.

The plan document (design 9.3) is the contract every view (CLI, pages, API, xlsx) reads.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


from models.costs import COST_LINES, CREDIT_LINES
from models.profile import (PlanCalendar, PlanDemand, UsageProfile, default_start_month,
                            plan_calendar, plan_demand)
from models.breakeven import breakeven_sections
from models.explain import explanation
from models.optimize import find_optimal
from models.scenario import Scenario
from models.uncertainty import uncertainty_section
from models.strategies import (PlanContext, StrategyResult, buy_for_peak_capacity,
                               on_demand_capacity, proposed_capacity)

STRATEGY_ORDER = ("on_demand", "cloud_only", "buy_for_peak", "optimal", "proposed")


@dataclass
class Plan:
    scenario: Scenario
    profile: UsageProfile
    context: PlanContext
    strategies: dict[str, StrategyResult]
    recommendation: str
    warnings: list[str] = field(default_factory=list)
    extras: dict[str, Any] = field(default_factory=dict)  # breakeven, charts, explanation...

    @property
    def calendar(self) -> PlanCalendar:
        return self.context.calendar

    def document(self) -> dict[str, Any]:
        from models.document import plan_document
        return plan_document(self)


def build_context(scenario: Scenario, profile: UsageProfile) -> PlanContext:
    f, p = scenario.finance, scenario.profile
    start = f.start_month or default_start_month(profile)
    calendar = plan_calendar(start, f.horizon_months)
    demand = plan_demand(profile, calendar.total_hours, growth_annual=p.growth_annual,
                         peak_to_average=p.peak_to_average,
                         interruptible_share=p.interruptible_share,
                         demand_basis=p.demand_basis,
                         target_utilization=p.target_utilization)
    return PlanContext(scenario, calendar, demand)


def compute_plan(scenario: Scenario, profile: UsageProfile) -> Plan:
    """Every strategy of the design (5.1) for a scenario and a usage profile."""
    ctx = build_context(scenario, profile)
    results: dict[str, StrategyResult] = {
        "on_demand": ctx.evaluate("on_demand", on_demand_capacity()),
        "buy_for_peak": ctx.evaluate("buy_for_peak", buy_for_peak_capacity(ctx)),
    }
    results.update(find_optimal(ctx))
    proposed = proposed_capacity(scenario)
    if proposed is not None:
        results["proposed"] = ctx.evaluate("proposed", proposed)
    ordered = {name: results[name] for name in STRATEGY_ORDER if name in results}
    recommendation = min(ordered, key=lambda n: (round(ordered[n].pv_cost, 6),
                                                 capital_outlay(ordered[n])))
    plan = Plan(scenario, profile, ctx, ordered, recommendation, plan_warnings(ctx, ordered))
    plan.extras.update(breakeven_sections(plan))
    if scenario.uncertainty.draws > 0:
        plan.extras["uncertainty"] = uncertainty_section(plan)
    text, fragile = explanation(plan)
    plan.extras.update(explanation=text, fragile=fragile)
    return plan


def capital_outlay(result: StrategyResult) -> float:
    """Undiscounted purchases and upfront payments: the tie-breaker between equal PV costs."""
    return float(result.lines["capex"].sum() + result.lines["commitment_upfront"].sum())


def plan_warnings(ctx: PlanContext, results: dict[str, StrategyResult]) -> list[str]:
    s, d = ctx.scenario, ctx.demand
    out: list[str] = []
    if d.repeated_hours:
        out.append(f"The usage profile covers {d.profile_hours_used:,} of the plan's "
                   f"{ctx.calendar.total_hours:,} hours; its last "
                   f"{min(8760, d.profile_hours_used):,} hours repeat for the rest.")
    if d.interruptible.sum() > 0:
        sw, fw = ctx.spot_waste, ctx.failure_waste
        if not sw.feasible:
            out.append(f"Spot is infeasible for the interruptible work: gangs of "
                       f"{s.spot.nodes_per_job} nodes are interrupted every "
                       f"{sw.mtbi_hours * 60:.1f} minutes on average and would waste "
                       f"{sw.fraction:.0%} of billed time; it runs on demand instead.")
        elif sw.fraction > 0.1:
            out.append(f"Spot wastes {sw.fraction:.1%} of billed time on checkpoints, lost work "
                       f"and restarts (gang of {s.spot.nodes_per_job} nodes, one interruption "
                       f"every {sw.mtbi_hours:.2f} h).")
        if fw.fraction > 0:
            out.append(f"Hardware failures cost interruptible work {fw.fraction:.2%} extra "
                       "GPU-hours on every source (overhead line).")
    for name, r in results.items():
        for offer_id, gpus in r.capacity.committed.items():
            past = gpus * ctx.units.offers[offer_id].past_horizon
            if past > 0.005:
                out.append(f"{name}: commitment {offer_id} ({gpus} GPUs) runs past the horizon; "
                           f"{past:,.0f} {s.finance.currency} of committed payments fall after "
                           "it and are not counted.")
        if r.capacity.servers and ctx.units.server.loan_payoff > 0:
            payoff = r.capacity.servers * ctx.units.server.loan_payoff
            out.append(f"{name}: loan balances of {payoff:,.0f} {s.finance.currency} are paid "
                       "off early (at a sale or the end of the horizon).")
    if s.owned.lead_time_months and s.owned.lead_time_months >= len(ctx.calendar.hours):
        out.append("The lead time is as long as the horizon: owned servers never come online.")
    return out


def month_rows(ctx: PlanContext, r: StrategyResult) -> list[dict[str, Any]]:
    """The monthly table of a strategy (design 5.1, 9.3)."""
    rows = []
    cumulative, discounted = r.cumulative, r.discounted_cumulative
    committed_gpus = sum(r.capacity.committed.values())
    for m, month in enumerate(ctx.calendar.months):
        row: dict[str, Any] = {
            "month": month, "hours": float(ctx.calendar.hours[m]),
            "demand_gpu_hours": float(ctx.tables.useful_by_month[m]),
            "owned_gpu_hours": float(r.owned_gpu_hours_by_month[m]),
            "committed_gpu_hours": float(r.committed_gpu_hours_by_month[m]),
            "spot_gpu_hours": float(r.spot_gpu_hours_by_month[m]),
            "on_demand_gpu_hours": float(r.on_demand_gpu_hours_by_month[m]),
            "overhead_gpu_hours": float(r.volumes.overhead[m]),
            "servers_online": float(r.servers_online[m]),
            "committed_gpus": committed_gpus,
            "owned_utilization": float(r.utilization_by_month[m]),
        }
        for name in COST_LINES + CREDIT_LINES:
            row[name] = float(r.lines[name][m])
        row["total_cost"] = float(r.total_by_month[m])
        row["cumulative_cost"] = float(cumulative[m])
        row["discounted_cumulative_cost"] = float(discounted[m])
        rows.append(row)
    return rows


def demand_summary(demand: PlanDemand) -> dict[str, float]:
    total = demand.total
    return {"plan_gpu_hours": float(total.sum()), "plan_peak_gpus": float(total.max()),
            "interruptible_share": float(demand.interruptible.sum() / total.sum())
            if total.sum() > 0 else 0.0}
