"""All-in utilization breakevens (design 5.2; issue 11 item 8): the whole engine run on a flat
profile, to find the utilization of one server at which owning costs the same as the cloud
option, every charge included.

Separate from the screening curves (models.screening) because each value here is a root found
by pricing whole strategies, not a crossing of two lines.
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np
from scipy.optimize import brentq

from models.breakeven_words import Direction
from models.capacity import Capacity, CapacityPlan, CommitmentCohort
from models.static_cohorts import static_plan
from models.messages import Message, Percent
from models.profile import PlanDemand
from models.screening import online_months
from models.plan_state import PlanState


def flat_context(ctx: PlanState, gpus: float, interruptible: bool) -> PlanState:
    """The plan's context with a flat demand in every hour (prices unchanged).

    Parameters
    ----------
    ctx : PlanState
        Context of the plan whose prices are kept.
    gpus : float
        Demand in every hour [GPUs of the measured type].
    interruptible : bool
        Whether the demand is interruptible (else steady).

    Returns
    -------
    PlanState
        The context for the flat demand.

    Notes
    -----
    d_h = G for every plan hour h, steady or (``interruptible``) interruptible, G = ``gpus``
    [GPUs]; prices unchanged (:meth:`models.strategies.PlanState.with_demand`).
    """
    hours = ctx.calendar.total_hours
    flat, zero = np.full(hours, gpus), np.zeros(hours)
    demand = PlanDemand(zero if interruptible else flat, flat if interruptible else zero,
                        profile_hours_used=hours, repeated_hours=0)
    return ctx.with_demand(demand)


def all_in_breakevens(ctx: PlanState, names: list[str]) -> tuple[dict, dict, dict]:
    """All-in utilization breakevens on a flat profile, every charge included.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan, re-demanded flat for each utilization.
    names : list of str
        Cloud options: ``on_demand``, ``spot`` or an offer id.

    Returns
    -------
    values : dict
        Option to the utilization of one owned server at which owning it costs what the option
        does (storage, egress, setup fee, support minimum included), None when they do not tie
        between 0 and the availability [fraction].
    directions : dict
        ``utilization_all_in.<name>`` to its :class:`Direction`.
    reasons : dict
        ``utilization_all_in.<name>`` to the :class:`Message` saying why a value is missing.

    Notes
    -----
    u* solves g(u) = PV_flat(u)(one owned server) - PV_flat(u)(the option's plan) = 0 on
    [1e-9, a] (:func:`bracketed_root`), with PV_flat(u) the PV on a flat demand of u x G x t GPUs
    every hour (G GPUs per server, t the relative throughput, a the availability), the option's
    plan from :func:`cloud_plan` [u: fraction].
    """
    s = ctx.scenario
    o = s.owned
    if not online_months(ctx).any():
        why = Message("owned servers never come online in the horizon")
        return ({n: None for n in names}, {}, {f"utilization_all_in.{n}": why for n in names})
    server_gpus = o.gpus_per_server * o.relative_throughput   # demand units at 100 %
    top = o.availability
    own = static_plan(s, Capacity(1, {}, use_spot=False), ctx.horizon,
                      first_month=ctx.calendar.months[0])
    owned_pv: dict[tuple, tuple[PlanState, float]] = {}   # shared by the cloud options
    unit: dict[bool, PlanState] = {}   # one GPU in every hour, scaled to each utilization

    def owned_at(u: float, interruptible: bool) -> tuple[PlanState, float]:
        key = (u, interruptible)
        if key not in owned_pv:
            if interruptible not in unit:
                unit[interruptible] = flat_context(ctx, 1.0, interruptible)
            c = unit[interruptible].scaled_demand(u * server_gpus)
            owned_pv[key] = (c, c.pv(own))
        return owned_pv[key]

    values, directions, reasons = {}, {}, {}
    for name in names:
        interruptible = name == "spot"
        cloud = cloud_plan(ctx, name)

        def gap(u: float) -> float:
            c, owned = owned_at(u, interruptible)
            return owned - c.pv(cloud)

        key = f"utilization_all_in.{name}"
        lo_gap, hi_gap = gap(1e-9), gap(top)
        cheaper_high = hi_gap < lo_gap
        directions[key] = Direction("owned", "above" if cheaper_high else "below", name)
        root = bracketed_root(gap, 1e-9, top, lo_gap, hi_gap)
        values[name] = root
        if root is None:
            which = "cheaper" if hi_gap <= 0 else "dearer"
            reasons[key] = Message("owning one server is {which} than {other} at every "
                                   "utilization from 0 to {top}, all charges included",
                                   {"which": which, "other": name, "top": Percent(top)})
    return values, directions, reasons


def cloud_plan(ctx: PlanState, name: str) -> CapacityPlan:
    """The cloud side of an all-in comparison.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (horizon, offers, server size).
    name : str
        ``on_demand``, ``spot`` or an offer id.

    Returns
    -------
    CapacityPlan
        On demand; spot with on demand for what spot cannot take; or a commitment of as many
        GPUs as one server holds (throughputs and availability counted), renewed each term.

    Notes
    -----
    A commitment's plan holds c = G x a x t_o / t_c GPUs per term, renewed at starts 0, T, 2T, ...
    < H, with G the GPUs per server, a the availability [fraction], t_o and t_c the owned and cloud
    relative throughputs [-], T the term and H the horizon [months].
    """
    s = ctx.scenario
    if name == "on_demand":
        return CapacityPlan(use_spot=False)
    if name == "spot":
        return CapacityPlan(use_spot=True)
    o = s.owned
    gpus = o.gpus_per_server * o.availability * o.relative_throughput / \
        s.on_demand.relative_throughput
    offer = next(x for x in s.commitments if x.id == name)
    cohorts = tuple(CommitmentCohort(name, gpus, start, offer.term_months)
                    for start in range(0, ctx.horizon, offer.term_months))
    return CapacityPlan((), cohorts, use_spot=False)


def bracketed_root(f: Callable[[float], float], lo: float, hi: float, f_lo: float,
                   f_hi: float) -> Optional[float]:
    """A root of f in [lo, hi], exact for a linear f, else by brentq.

    Parameters
    ----------
    f : callable
        The function, float to float.
    lo : float
        Lower end of the bracket.
    hi : float
        Upper end of the bracket.
    f_lo : float
        f(lo), already known.
    f_hi : float
        f(hi), already known.

    Returns
    -------
    float or None
        The root, in the unit of ``lo`` and ``hi``; None if f keeps its sign on the bracket.

    Notes
    -----
    x_1 = lo - f(lo) (hi - lo) / (f(hi) - f(lo)) (the secant, exact for a linear f); x_1 when
    |f(x_1)| <= 1e-9 x max(1, |f(lo)|, |f(hi)|), else brentq on the half of [lo, hi] where f changes
    sign.
    """
    if f_lo == 0:
        return lo
    if f_hi == 0:
        return hi
    if f_lo * f_hi > 0:
        return None
    guess = lo - f_lo * (hi - lo) / (f_hi - f_lo)   # exact when f is linear
    f_guess = f(guess)
    if abs(f_guess) <= 1e-9 * max(1.0, abs(f_lo), abs(f_hi)):
        return float(guess)
    a, b = (lo, guess) if f_lo * f_guess < 0 else (guess, hi)
    return float(brentq(f, a, b, xtol=1e-12, rtol=1e-12))
