"""Sensitivity tornado and Monte Carlo of a plan (design 5.4, issue 7).

The decision is made today: the capacities of every strategy stay fixed, and only the
assumptions move. The tornado re-runs the engine once per assumption end; the Monte Carlo costs
all draws at once (models/draws.py). Savings are PV cost of a baseline minus PV cost of the
judged plan [currency], positive when buying saves money: the tornado's baseline is
``on_demand`` (design 5.4), the Monte Carlo's ``cloud_only`` (issue 7).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from models.assumptions import ASSUMPTIONS, BY_KEY, base_value, low_high, sample, with_values
from models.draw_dispatch import draw_demand, grown_demand
from models.draws import draw_prices, draw_pvs
from models.profile import UsageProfile, plan_demand
from models.scenario import Scenario
from models.strategies import Capacity, PlanContext

if TYPE_CHECKING:
    from models.plan import Plan

# assumptions that change the demand tables, the wastes or the discount factors
REBUILD = ("demand_growth", "discount_rate", "spot_interruptions", "failure_rate")


def what_if_context(ctx: PlanContext, scenario: Scenario,
                    profile: Optional[UsageProfile] = None) -> PlanContext:
    """The engine's context for a what-if scenario with the same calendar and profile."""
    s0 = ctx.scenario
    if scenario.profile != s0.profile:
        p = scenario.profile
        if profile is not None:
            demand = plan_demand(profile, ctx.calendar.total_hours, growth_annual=p.growth_annual,
                                 peak_to_average=p.peak_to_average,
                                 interruptible_share=p.interruptible_share,
                                 demand_basis=p.demand_basis,
                                 target_utilization=p.target_utilization)
        else:  # rescale the plan's demand from the base growth to the new one, hour by hour
            t = np.arange(ctx.calendar.total_hours) / 8760.0
            f = ((1.0 + p.growth_annual) / (1.0 + s0.profile.growth_annual)) ** t
            d = ctx.demand
            demand = type(d)(d.steady * f, d.interruptible * f, d.profile_hours_used,
                             d.repeated_hours)
        return PlanContext(scenario, ctx.calendar, demand)
    if (scenario.finance != s0.finance or scenario.spot != s0.spot
            or scenario.owned.failures_per_server_year != s0.owned.failures_per_server_year):
        return PlanContext(scenario, ctx.calendar, ctx.demand)
    return ctx.repriced(scenario)


def tornado(ctx: PlanContext, capacities: dict[str, Capacity],
            profile: Optional[UsageProfile] = None, baseline: str = "on_demand"
            ) -> list[dict[str, Any]]:
    """PV saving of each judged capacity over the baseline at each assumption's low and high.

    ``capacities`` maps names to fixed capacities and must hold ``baseline`` and ``optimal``
    (``proposed`` too when given). Rows are sorted by the swing of ``optimal``, largest first.
    """
    s = ctx.scenario
    judged = [n for n in ("optimal", "proposed") if n in capacities]
    rows = []
    for a in ASSUMPTIONS:
        lo, hi = low_high(s, a.key)
        savings: dict[str, list[float]] = {n: [] for n in judged}
        for value in (lo, hi):
            c = what_if_context(ctx, with_values(s, {a.key: value}), profile)
            base_pv = c.evaluate(baseline, capacities[baseline]).pv_cost
            for n in judged:
                savings[n].append(base_pv - c.evaluate(n, capacities[n]).pv_cost)
        row: dict[str, Any] = {
            "assumption": a.key, "label": a.label, "unit": a.unit,
            "base": float(base_value(s, a.key)), "low": lo, "high": hi,
            "saving_low": savings["optimal"][0], "saving_high": savings["optimal"][1],
            "swing": abs(savings["optimal"][1] - savings["optimal"][0])}
        if "proposed" in savings:
            row["proposed"] = {"saving_low": savings["proposed"][0],
                               "saving_high": savings["proposed"][1]}
        rows.append(row)
    return sorted(rows, key=lambda r: -r["swing"])


@dataclass
class MonteCarlo:
    """PV cost of every strategy in every draw, and the draws themselves."""

    values: dict[str, np.ndarray]   # assumption -> (n,) values
    pv: dict[str, np.ndarray]       # strategy -> (n,) PV cost [currency]

    def saving(self, judged: str = "optimal", baseline: str = "cloud_only") -> np.ndarray:
        return self.pv[baseline] - self.pv[judged]


def monte_carlo(ctx: PlanContext, capacities: dict[str, Capacity], draws: int,
                seed: int) -> MonteCarlo:
    """PV cost of each fixed capacity over ``draws`` draws of the assumptions (vectorised)."""
    values = sample(ctx.scenario, draws, seed)
    prices = draw_prices(ctx, values)
    demand = draw_demand(ctx, values)
    return MonteCarlo(values, draw_pvs(ctx, prices, demand, capacities, values["availability"]))


def draw_context(ctx: PlanContext, values: dict[str, np.ndarray], i: int) -> PlanContext:
    """The engine's own context for draw i (to check the vectorised figures against)."""
    one = {k: float(v[i]) for k, v in values.items() if k != "demand_growth"}
    scenario = with_values(ctx.scenario, one)
    return PlanContext(scenario, ctx.calendar, grown_demand(ctx, float(values["demand_growth"][i])))


def summary(mc: MonteCarlo, judged: str, bins: int, baseline: str = "cloud_only"
            ) -> dict[str, Any]:
    saving = mc.saving(judged, baseline)
    p10, p50, p90 = np.percentile(saving, [10, 50, 90])
    counts, edges = np.histogram(saving, bins=bins)
    return {"saving_p10": float(p10), "saving_p50": float(p50), "saving_p90": float(p90),
            "saving_mean": float(saving.mean()),
            "probability_buy_cheaper": float(np.mean(mc.pv[judged] < mc.pv[baseline])),
            "histogram": {"edges": edges.tolist(), "counts": counts.tolist()}}


def regret(mc: MonteCarlo) -> dict[str, dict[str, float]]:
    """PV cost of each strategy minus the cheapest strategy of the same draw [currency]."""
    best = np.min(np.stack(list(mc.pv.values())), axis=0)
    return {name: {"mean": float((pv - best).mean()),
                   "p90": float(np.percentile(pv - best, 90)),
                   "probability_best": float(np.mean(pv - best <= 0))}
            for name, pv in mc.pv.items()}


def uncertainty_section(plan: "Plan") -> dict[str, Any]:
    """The plan document's "uncertainty" section."""
    ctx, u = plan.context, plan.scenario.uncertainty
    capacities = {name: r.capacity for name, r in plan.strategies.items()}
    mc = monte_carlo(ctx, capacities, u.draws, u.seed)
    section: dict[str, Any] = {"draws": u.draws, "seed": u.seed, "judged": "optimal",
                               "baseline": "cloud_only",
                               **summary(mc, "optimal", u.histogram_bins)}
    section["regret"] = regret(mc)
    if "proposed" in capacities:
        section["proposed"] = summary(mc, "proposed", u.histogram_bins)
    section["tornado_baseline"] = "on_demand"
    section["tornado"] = tornado(ctx, capacities, plan.profile)
    return section


__all__ = ["tornado", "monte_carlo", "uncertainty_section", "draw_context", "MonteCarlo",
           "BY_KEY"]
