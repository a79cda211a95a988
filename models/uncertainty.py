"""Sensitivity tornado and Monte Carlo of a plan (design 5.4, issue 7).

The decision is made today: the capacities of every strategy stay fixed, and only the
assumptions move. The tornado prices each assumption end as one draw of the cost kernel, all
ends at once (demand growth's by the engine, which grows demand hour by hour); the Monte Carlo
costs all its draws at once (models/draws.py). Savings are PV cost of a baseline minus PV cost of the
judged plan [currency], positive when buying saves money. Both judge the same plan against the
same baseline (issue 23): the recommended plan (the best plan that buys servers when the
recommendation buys none) against the best cloud-only plan, ``cloud_only``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from models.assumption_sampling import sample
from models.assumption_values import base_value, low_high, with_values
from models.assumptions import ASSUMPTIONS, assumptions_for, per_type
from models.draw_dispatch import grown_demand
from models.draws import draw_pvs
from models.messages import Message
from models.plan_state import PlanState
from models.profile import UsageProfile, demand_for
from models.scenario import Scenario
from models.capacity import Capacity
from models.optimize import best_capacity
from models.strategy_result import StrategyResult

# tornado ends priced by a fresh engine context rather than as draws of the cost kernel
ENGINE_ENDS = ("demand_growth",)


def what_if_context(ctx: PlanState, scenario: Scenario,
                    profile: Optional[UsageProfile] = None) -> PlanState:
    """The engine's context for a what-if scenario with the same calendar and profile.

    Parameters
    ----------
    ctx : PlanState
        Context of the base plan.
    scenario : Scenario
        The what-if scenario.
    profile : UsageProfile, optional
        The usage, to lay a changed ``profile`` section over again; without it a changed growth
        rescales the plan's demand hour by hour.

    Returns
    -------
    PlanState
        A new context when the ``profile`` section changed, else the plan's re-priced.

    Notes
    -----
    A changed profile section without the usage: d'_h = d_h x ((1 + g') / (1 + g))^(h / 8760), g
    and g' the base and new annual growths [fraction per year], h the plan hour; else
    :meth:`models.plan_state.PlanState.repriced`.
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
        return PlanState.build(scenario, ctx.calendar, demand)
    return ctx.repriced(scenario)


def tornado(ctx: PlanState, capacities: dict[str, Capacity],
            profile: Optional[UsageProfile] = None, baseline: str = "on_demand",
            judged: str = "optimal") -> list[dict[str, Any]]:
    """PV saving of each judged capacity over the baseline at each assumption's low and high.

    Parameters
    ----------
    ctx : PlanState
        Context of the base plan: each end is one draw of its cost kernel (demand growth's a
        what-if context of the engine).
    capacities : dict of str to Capacity or CapacityPlan
        Fixed capacities by name; must hold ``baseline`` and ``judged`` (``proposed`` is
        judged too when given).
    profile : UsageProfile, optional
        The usage (see :func:`what_if_context`).
    baseline : str, default 'on_demand'
        The capacity savings are measured against (the plan's section: ``cloud_only``).
    judged : str, default 'optimal'
        The capacity whose saving each row gives (the plan's section: the one its Monte Carlo
        judges).

    Returns
    -------
    list of dict
        One row per assumption that applies: ``assumption``, ``label``, ``unit``, ``base``,
        ``low``, ``high`` [the assumption's unit], ``saving_low`` and ``saving_high`` of
        ``judged`` (baseline PV cost minus its PV cost, > 0 when it saves) [currency],
        ``swing`` [currency] and ``proposed`` savings when judged too. Sorted by swing,
        largest first.

    Notes
    -----
    For each assumption a at its low and high (:func:`models.assumption_values.low_high`) with every
    other at its base: saving = PV(baseline) - PV(judged) [currency], priced by
    :func:`models.draws.draw_pvs` (demand growth by :func:`what_if_context`);
    swing = |saving_high - saving_low|.
    """
    s = ctx.scenario
    main = judged
    judged = [main] + [n for n in ("proposed",) if n in capacities and n != main]
    names = [baseline] + judged
    ends = [(a, low_high(s, a.key)) for a in assumptions_for(s)]
    # every end but demand growth's is one draw of the cost kernel, all priced in one call;
    # growth re-runs the engine, which grows demand hour by hour where the draws grow it by
    # month (models/draw_dispatch.py)
    kernel = [(a.key, value) for a, pair in ends if a.key not in ENGINE_ENDS for value in pair]
    at: dict[tuple[str, int], dict[str, float]] = {}   # (assumption, 0 low | 1 high): PVs
    if kernel:
        values = {a.key: np.full(len(kernel), base_value(s, a.key))
                  for a in ASSUMPTIONS + per_type(s)}
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
            "saving_low": savings[main][0], "saving_high": savings[main][1],
            "swing": abs(savings[main][1] - savings[main][0])}
        if a.server_type is not None:     # a fleet: the type whose price or throughput
            row["server_type"] = a.server_type
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

        Notes
        -----
        saving_i = PV_i(baseline) - PV_i(judged) for each draw i [currency].
        """
        return self.pv[baseline] - self.pv[judged]


def monte_carlo(ctx: PlanState, capacities: dict[str, Capacity], draws: int,
                seed: int) -> MonteCarlo:
    """PV cost of each fixed capacity over draws of the assumptions (vectorised).

    Parameters
    ----------
    ctx : PlanState
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

    Notes
    -----
    PV_i(name) = :func:`models.draws.draw_pvs` of each capacity's cohorts at draw i of
    :func:`models.assumption_sampling.sample` (scenario, draws, seed) [currency].
    """
    values = sample(ctx.scenario, draws, seed)
    plans = {name: ctx.capacity_plan(c) for name, c in capacities.items()}
    return MonteCarlo(values, draw_pvs(ctx, values, plans))


def draw_context(ctx: PlanState, values: dict[str, np.ndarray], i: int) -> PlanState:
    """The engine's own context for one draw, to check the vectorised figures against.

    Parameters
    ----------
    ctx : PlanState
        Context of the base plan (calendar, demand).
    values : dict of str to numpy.ndarray
        Assumption values of every draw [the assumption's unit, (n,)].
    i : int
        Index of the draw.

    Returns
    -------
    PlanState
        The context of the scenario with draw i's values and demand growth.

    Notes
    -----
    scenario_i = :func:`models.assumption_values.with_values` (scenario, draw i's values);
    demand_i = :func:`models.draw_dispatch.grown_demand` at draw i's growth.
    """
    one = {k: float(v[i]) for k, v in values.items() if k != "demand_growth"}
    scenario = with_values(ctx.scenario, one)
    return PlanState.build(scenario, ctx.calendar,
                           grown_demand(ctx, float(values["demand_growth"][i])))


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
        ``probability_buy_cheaper`` and ``probability_buy_dearer`` (draws in which the judged
        strategy costs less, or more, than the baseline; a tie counts as neither) [fraction of
        draws] and ``histogram`` (``edges`` [currency], ``counts`` [draws]).

    Notes
    -----
    With :math:`s_i = PV_{baseline,i} - PV_{judged,i}` over :math:`n` draws, the median is
    ``numpy.percentile(s, 50)`` (the mean of the two middle values for an even :math:`n`) and
    the chance of losing is (number of draws with :math:`s_i < 0`) / :math:`n`.
    """
    saving = mc.saving(judged, baseline)
    p10, p50, p90 = np.percentile(saving, [10, 50, 90])
    counts, edges = np.histogram(saving, bins=bins)
    return {"saving_p10": float(p10), "saving_p50": float(p50), "saving_p90": float(p90),
            "saving_mean": float(saving.mean()),
            "probability_buy_cheaper": float(np.mean(mc.pv[judged] < mc.pv[baseline])),
            "probability_buy_dearer": float(np.mean(mc.pv[judged] > mc.pv[baseline])),
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

    Notes
    -----
    With R_i = PV_i(strategy) - min_s PV_i(s) for each draw i: mean = (1/N) sum_i R_i, p90 = the
    90th percentile of R, probability_best = (1/N) #{i : R_i <= 0}.
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
    judged: str                 # the recommendation, or "best_with_servers"
    judged_capacity: Capacity   # or the CapacityPlan of a schedule
    baseline: str               # "cloud_only"
    baseline_capacity: Capacity
    deterministic_saving: float
    summary: dict[str, Any]
    regret: dict[str, dict[str, float]]
    proposed: Optional[dict[str, Any]]
    staged: Optional[dict[str, Any]]
    tornado_baseline: str       # "cloud_only": the tornado judges ``judged`` against it too
    tornado: list[dict[str, Any]]
    judged_is_recommended: bool = True
    deterministic_note: Optional[Message] = None   # the base-case saving outside P10-P90


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

    Notes
    -----
    :func:`summary` of ``staged``; probability_beats_cloud_only = (1/N) #{i : PV_i(staged) <
    PV_i(cloud_only)}, and the same against ``optimal``.
    """
    out = summary(mc, "staged", bins)
    out["probability_beats_cloud_only"] = float(np.mean(mc.pv["staged"] < mc.pv["cloud_only"]))
    out["probability_beats_best_static"] = float(np.mean(mc.pv["staged"] < mc.pv["optimal"]))
    return out


def buys_servers(r: StrategyResult) -> bool:
    """Whether a strategy buys servers (beyond those held).

    Parameters
    ----------
    r : StrategyResult
        A strategy priced: a static capacity or a schedule.

    Returns
    -------
    bool
        True when its capacity adds servers or its schedule buys any.
    """
    if r.capacity is not None:
        return r.capacity.servers > 0 or any(r.capacity.servers_by_type.values())
    return any(d.buy_servers or any(d.buy.values()) for d in r.schedule)


def judged_capacity(ctx: PlanState, strategies: dict[str, StrategyResult],
                    recommendation: Optional[str] = None) -> tuple[str, Any]:
    """The plan the Monte Carlo and the tornado judge against the best cloud-only plan.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (for the best plan with servers).
    strategies : dict of str to StrategyResult
        Every strategy priced, ``optimal`` among them.
    recommendation : str, optional
        The recommended strategy; ``optimal`` when None.

    Returns
    -------
    name : str
        The recommendation when it buys servers; else ``optimal`` when that buys servers, else
        ``"best_with_servers"`` (the recommendation itself when no plan can own one).
    capacity : Capacity or CapacityPlan
        Its capacity, or the cohorts of its schedule.

    Notes
    -----
    judged = the recommendation if it buys servers, else ``optimal`` if that does, else
    :func:`models.optimize.best_capacity` with n >= 1.
    """
    name = recommendation or "optimal"
    r = strategies[name]
    if buys_servers(r):
        return name, r.capacity if r.capacity is not None else r.plan
    if buys_servers(strategies["optimal"]):
        return "optimal", strategies["optimal"].capacity
    try:
        capacity, _ = best_capacity(ctx, min_servers=1)
    except ValueError:
        return name, r.capacity if r.capacity is not None else r.plan
    return "best_with_servers", capacity


def deterministic_note(deterministic: float, summary: dict[str, Any]) -> Optional[Message]:
    """A sentence when the base-case saving lies outside the draws' P10 to P90.

    Parameters
    ----------
    deterministic : float
        Saving with every assumption at its base value [currency].
    summary : dict
        :func:`summary` of the draws (``saving_p10``, ``saving_p90``) [currency].

    Returns
    -------
    Message or None
        Why: the ranges are lopsided around the most likely values (each base value is its
        range's mode); None inside P10 to P90.
    """
    if deterministic > summary["saving_p90"]:
        return Message("The saving with every assumption at its base value lies above P90: "
                       "the ranges are lopsided around the most likely values (each base "
                       "value is its range's mode, and most ranges reach further on the side "
                       "that makes buying dearer), so most draws save less.")
    if deterministic < summary["saving_p10"]:
        return Message("The saving with every assumption at its base value lies below P10: "
                       "the ranges are lopsided around the most likely values (each base "
                       "value is its range's mode, and most ranges reach further on the side "
                       "that makes buying cheaper), so most draws save more.")
    return None


def uncertainty_section(ctx: PlanState, strategies: dict[str, StrategyResult],
                        profile: Optional[UsageProfile] = None,
                        recommendation: Optional[str] = None) -> UncertaintySection:
    """Buying against renting under uncertainty: the Monte Carlo and the tornado (design 5.4).

    Parameters
    ----------
    ctx : PlanState
        The plan's context (its ``uncertainty`` section sets draws, seed and bins).
    strategies : dict of str to StrategyResult
        Strategies priced, by name.
    profile : UsageProfile, optional
        The usage (see :func:`what_if_context`).
    recommendation : str, optional
        The recommended strategy (see :func:`judged_capacity`); ``optimal`` when None.

    Returns
    -------
    UncertaintySection
        The recommended plan (the best plan that buys servers when it buys none) judged
        against the best cloud-only plan over the draws and in the tornado (savings
        [currency], > 0 when the judged plan saves), regret, the proposed and staged plans
        held fixed, and a note when the base-case saving lies outside P10 to P90.

    Notes
    -----
    deterministic saving = PV(cloud_only) - PV(judged) at the base values [currency]; the summary
    of the judged plan's saving over :func:`monte_carlo`'s draws; :func:`regret`; :func:`tornado`.
    """
    u = ctx.scenario.uncertainty
    capacities = {name: r.capacity if r.capacity is not None else r.plan
                  for name, r in strategies.items()}
    judged, judged_cap = judged_capacity(ctx, strategies, recommendation)
    capacities.setdefault(judged, judged_cap)
    mc = monte_carlo(ctx, capacities, u.draws, u.seed)
    baseline_cap = strategies["cloud_only"].capacity
    deterministic = ctx.pv(baseline_cap) - ctx.pv(judged_cap)
    judged_summary = summary(mc, judged, u.histogram_bins)
    return UncertaintySection(
        draws=u.draws, seed=u.seed, judged=judged, judged_capacity=judged_cap,
        baseline="cloud_only", baseline_capacity=baseline_cap,
        deterministic_saving=deterministic, summary=judged_summary,
        regret=regret(mc),
        proposed=summary(mc, "proposed", u.histogram_bins) if "proposed" in strategies
        else None,
        staged=staged_summary(mc, u.histogram_bins) if "staged" in strategies else None,
        tornado_baseline="cloud_only",
        tornado=tornado(ctx, capacities, profile, baseline="cloud_only", judged=judged),
        judged_is_recommended=judged == (recommendation or "optimal"),
        deterministic_note=deterministic_note(deterministic, judged_summary))
