"""Sensitivity tornado and Monte Carlo of a plan (design 5.4, issue 7).

The decision is made today: the capacities of every strategy stay fixed, and only the
assumptions move. The tornado prices each assumption end as one draw of the cost kernel, all
ends at once (demand growth's by the engine, which grows demand hour by hour); the Monte Carlo
costs all its draws at once (models/draws.py). Savings are PV cost of a baseline minus PV cost of the
judged plan [currency], positive when buying saves money: the tornado's baseline is
``on_demand`` (design 5.4), the Monte Carlo's ``cloud_only`` (issue 7).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from models.assumptions import (ASSUMPTIONS, BY_KEY, applies, base_value, low_high, sample,
                                with_values)
from models.draw_dispatch import grown_demand
from models.draws import draw_pvs
from models.profile import UsageProfile, demand_for
from models.scenario import Scenario
from models.capacity import Capacity
from models.optimize import best_capacity
from models.strategies import PlanContext, StrategyResult

# tornado ends priced by a fresh engine context rather than as draws of the cost kernel
ENGINE_ENDS = ("demand_growth",)


def what_if_context(ctx: PlanContext, scenario: Scenario,
                    profile: Optional[UsageProfile] = None) -> PlanContext:
    """The engine's context for a what-if scenario with the same calendar and profile.

    Parameters
    ----------
    ctx : PlanContext
        Context of the base plan.
    scenario : Scenario
        The what-if scenario.
    profile : UsageProfile, optional
        The usage, to lay a changed ``profile`` section over again; without it a changed growth
        rescales the plan's demand hour by hour.

    Returns
    -------
    PlanContext
        A new context when the ``profile`` section changed, else the plan's re-priced.
    """
    s0 = ctx.scenario
    if scenario.profile != s0.profile:
        p = scenario.profile
        if profile is not None:
            demand = demand_for(p, profile, ctx.calendar.total_hours)
        else:  # rescale the plan's demand from the base growth to the new one, hour by hour
            t = np.arange(ctx.calendar.total_hours) / 8760.0
            f = ((1.0 + p.growth_annual) / (1.0 + s0.profile.growth_annual)) ** t
            d = ctx.demand
            demand = type(d)(d.steady * f, d.interruptible * f, d.profile_hours_used,
                             d.repeated_hours)
        return PlanContext(scenario, ctx.calendar, demand)
    return ctx.repriced(scenario)


def tornado(ctx: PlanContext, capacities: dict[str, Capacity],
            profile: Optional[UsageProfile] = None, baseline: str = "on_demand"
            ) -> list[dict[str, Any]]:
    """PV saving of each judged capacity over the baseline at each assumption's low and high.

    Parameters
    ----------
    ctx : PlanContext
        Context of the base plan: each end is one draw of its cost kernel (demand growth's a
        what-if context of the engine).
    capacities : dict of str to Capacity or CapacityPlan
        Fixed capacities by name; must hold ``baseline`` and ``optimal`` (``proposed`` is
        judged too when given).
    profile : UsageProfile, optional
        The usage (see :func:`what_if_context`).
    baseline : str, default 'on_demand'
        The capacity savings are measured against.

    Returns
    -------
    list of dict
        One row per assumption that applies: ``assumption``, ``label``, ``unit``, ``base``,
        ``low``, ``high`` [the assumption's unit], ``saving_low`` and ``saving_high`` of
        ``optimal`` (baseline PV cost minus its PV cost, > 0 when it saves) [currency],
        ``swing`` [currency] and ``proposed`` savings when judged. Sorted by swing, largest
        first.
    """
    s = ctx.scenario
    judged = [n for n in ("optimal", "proposed") if n in capacities]
    names = [baseline] + judged
    ends = [(a, low_high(s, a.key)) for a in ASSUMPTIONS if applies(s, a.key)]
    # every end but demand growth's is one draw of the cost kernel, all priced in one call;
    # growth re-runs the engine, which grows demand hour by hour where the draws grow it by
    # month (models/draw_dispatch.py)
    kernel = [(a.key, value) for a, pair in ends if a.key not in ENGINE_ENDS for value in pair]
    at: dict[tuple[str, int], dict[str, float]] = {}   # (assumption, 0 low | 1 high): PVs
    if kernel:
        values = {key: np.full(len(kernel), base_value(s, key)) for key in BY_KEY}
        for i, (key, value) in enumerate(kernel):
            values[key][i] = value
        priced = draw_pvs(ctx, values, {n: ctx.capacity_plan(capacities[n]) for n in names})
        at = {(key, i % 2): {n: float(priced[n][i]) for n in names}
              for i, (key, _) in enumerate(kernel)}
    rows = []
    for a, (lo, hi) in ends:
        savings: dict[str, list[float]] = {n: [] for n in judged}
        for side, value in enumerate((lo, hi)):
            if a.key in ENGINE_ENDS:
                c = what_if_context(ctx, with_values(s, {a.key: value}), profile)
                pv = {n: c.pv(capacities[n]) for n in names}
            else:
                pv = at[(a.key, side)]
            for n in judged:
                savings[n].append(pv[baseline] - pv[n])
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
        """Saving of a judged strategy over a baseline in each draw.

        Parameters
        ----------
        judged : str, default 'optimal'
            The strategy judged.
        baseline : str, default 'cloud_only'
            The strategy it is measured against.

        Returns
        -------
        numpy.ndarray
            Baseline PV cost minus judged PV cost, > 0 when the judged strategy is cheaper
            [currency, (n,)].
        """
        return self.pv[baseline] - self.pv[judged]


def monte_carlo(ctx: PlanContext, capacities: dict[str, Capacity], draws: int,
                seed: int) -> MonteCarlo:
    """PV cost of each fixed capacity over draws of the assumptions (vectorised).

    Parameters
    ----------
    ctx : PlanContext
        Context of the plan (scenario with its ranges).
    capacities : dict of str to Capacity or CapacityPlan
        Fixed capacities by name.
    draws : int
        Number of draws.
    seed : int
        Seed of the random generator.

    Returns
    -------
    MonteCarlo
        The drawn values and each capacity's PV cost in each draw [currency, (draws,)].
    """
    values = sample(ctx.scenario, draws, seed)
    plans = {name: ctx.capacity_plan(c) for name, c in capacities.items()}
    return MonteCarlo(values, draw_pvs(ctx, values, plans))


def draw_context(ctx: PlanContext, values: dict[str, np.ndarray], i: int) -> PlanContext:
    """The engine's own context for one draw, to check the vectorised figures against.

    Parameters
    ----------
    ctx : PlanContext
        Context of the base plan (calendar, demand).
    values : dict of str to numpy.ndarray
        Assumption values of every draw [the assumption's unit, (n,)].
    i : int
        Index of the draw.

    Returns
    -------
    PlanContext
        The context of the scenario with draw i's values and demand growth.
    """
    one = {k: float(v[i]) for k, v in values.items() if k != "demand_growth"}
    scenario = with_values(ctx.scenario, one)
    return PlanContext(scenario, ctx.calendar, grown_demand(ctx, float(values["demand_growth"][i])))


def summary(mc: MonteCarlo, judged: str, bins: int, baseline: str = "cloud_only"
            ) -> dict[str, Any]:
    """Distribution of a judged strategy's saving over a baseline across the draws.

    Parameters
    ----------
    mc : MonteCarlo
        Draws priced.
    judged : str
        The strategy judged.
    bins : int
        Bins of the histogram.
    baseline : str, default 'cloud_only'
        The strategy it is measured against.

    Returns
    -------
    dict
        ``saving_p10``, ``saving_p50``, ``saving_p90``, ``saving_mean`` (baseline PV cost
        minus judged PV cost, > 0 when the judged strategy saves) [currency],
        ``probability_buy_cheaper`` [fraction of draws] and ``histogram`` (``edges``
        [currency], ``counts`` [draws]).
    """
    saving = mc.saving(judged, baseline)
    p10, p50, p90 = np.percentile(saving, [10, 50, 90])
    counts, edges = np.histogram(saving, bins=bins)
    return {"saving_p10": float(p10), "saving_p50": float(p50), "saving_p90": float(p90),
            "saving_mean": float(saving.mean()),
            "probability_buy_cheaper": float(np.mean(mc.pv[judged] < mc.pv[baseline])),
            "histogram": {"edges": edges.tolist(), "counts": counts.tolist()}}


def regret(mc: MonteCarlo) -> dict[str, dict[str, float]]:
    """PV cost of each strategy minus the cheapest strategy of the same draw.

    Parameters
    ----------
    mc : MonteCarlo
        Draws priced, every strategy.

    Returns
    -------
    dict of str to dict
        Strategy to ``mean`` and ``p90`` regret (>= 0) [currency] and ``probability_best``
        [fraction of draws].
    """
    best = np.min(np.stack(list(mc.pv.values())), axis=0)
    return {name: {"mean": float((pv - best).mean()),
                   "p90": float(np.percentile(pv - best, 90)),
                   "probability_best": float(np.mean(pv - best <= 0))}
            for name, pv in mc.pv.items()}


@dataclass
class UncertaintySection:
    """The plan document's "uncertainty" section."""

    draws: int
    seed: int
    judged: str                 # a strategy name, or "best_with_servers"
    judged_capacity: Capacity
    baseline: str               # "cloud_only"
    baseline_capacity: Capacity
    deterministic_saving: float
    summary: dict[str, Any]
    regret: dict[str, dict[str, float]]
    proposed: Optional[dict[str, Any]]
    staged: Optional[dict[str, Any]]
    tornado_baseline: str
    tornado: list[dict[str, Any]]


def staged_summary(mc: MonteCarlo, bins: int) -> dict[str, Any]:
    """The staged schedule held fixed under every draw.

    Parameters
    ----------
    mc : MonteCarlo
        The draws priced, ``staged``, ``cloud_only`` and ``optimal`` among them.
    bins : int
        Bins of the histogram of savings.

    Returns
    -------
    dict
        :func:`summary` of its saving against the best cloud-only plan [currency], and
        ``probability_beats_cloud_only`` and ``probability_beats_best_static`` [fraction of
        draws].
    """
    out = summary(mc, "staged", bins)
    out["probability_beats_cloud_only"] = float(np.mean(mc.pv["staged"] < mc.pv["cloud_only"]))
    out["probability_beats_best_static"] = float(np.mean(mc.pv["staged"] < mc.pv["optimal"]))
    return out


def judged_capacity(ctx: PlanContext, strategies: dict[str, StrategyResult]
                    ) -> tuple[str, Capacity]:
    """The plan the Monte Carlo judges: the best plan that owns at least one server.

    Parameters
    ----------
    ctx : PlanContext
        Context of the plan (for the best plan with servers).
    strategies : dict of str to StrategyResult
        Every strategy priced, ``optimal`` among them.

    Returns
    -------
    name : str
        ``"optimal"`` when it owns servers (or when no plan can), else
        ``"best_with_servers"``.
    capacity : Capacity
        Its capacity.
    """
    optimal = strategies["optimal"].capacity
    if optimal.servers > 0:
        return "optimal", optimal
    try:
        capacity, _ = best_capacity(ctx, min_servers=1)
    except ValueError:
        return "optimal", optimal
    return "best_with_servers", capacity


def uncertainty_section(ctx: PlanContext, strategies: dict[str, StrategyResult],
                        profile: Optional[UsageProfile] = None) -> UncertaintySection:
    """Buying against renting under uncertainty: the Monte Carlo and the tornado (design 5.4).

    Parameters
    ----------
    ctx : PlanContext
        The plan's context (its ``uncertainty`` section sets draws, seed and bins).
    strategies : dict of str to StrategyResult
        Strategies priced, by name.
    profile : UsageProfile, optional
        The usage (see :func:`what_if_context`).

    Returns
    -------
    UncertaintySection
        The best plan that owns servers judged against the best cloud-only plan over the draws
        (savings [currency], > 0 when owning saves), regret, the proposed and staged plans held
        fixed, and the tornado against on demand.
    """
    u = ctx.scenario.uncertainty
    capacities = {name: r.capacity if r.capacity is not None else r.plan
                  for name, r in strategies.items()}
    judged, judged_cap = judged_capacity(ctx, strategies)
    capacities.setdefault(judged, judged_cap)
    mc = monte_carlo(ctx, capacities, u.draws, u.seed)
    baseline_cap = strategies["cloud_only"].capacity
    return UncertaintySection(
        draws=u.draws, seed=u.seed, judged=judged, judged_capacity=judged_cap,
        baseline="cloud_only", baseline_capacity=baseline_cap,
        deterministic_saving=ctx.pv(baseline_cap) - ctx.pv(judged_cap),
        summary=summary(mc, judged, u.histogram_bins),
        regret=regret(mc),
        proposed=summary(mc, "proposed", u.histogram_bins) if "proposed" in strategies
        else None,
        staged=staged_summary(mc, u.histogram_bins) if "staged" in strategies else None,
        tornado_baseline="on_demand",
        tornado=tornado(ctx, capacities, profile))
