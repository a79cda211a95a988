"""Breakevens and the chart data behind them (design 5.2, 9.3; issue 11 items 5, 8, 9).

*Marginal* utilization breakevens are crossings of screening curves: each source's levelized
PV cost per GPU-year of capacity against the hours a year it is used (owned a_o + b_o h, on
demand and spot b h, a commitment a flat a_k). They leave out storage, egress, the setup fee and
the support minimum. They are about buying the next server on top of the servers held: its
purchase, running costs, resale and tax, compared with the cloud over the months that server is
online (during a lead time both sides rent the same cloud). *All-in* breakevens run the whole
engine on a flat profile and find the utilization of one server at which owning costs the same
as the cloud option, every charge included. Every breakeven states its direction. Price
breakevens (on-demand price, server price) tie the best plan that owns servers with the best
cloud-only plan, searched inside the field's allowed range only.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np
from scipy.optimize import brentq

from models.breakeven_words import Direction
from models.capacity import Capacity, CapacityPlan, CommitmentCohort, static_plan
from models.fields import field_meta
from models.finance import never_dearer, payback_month
from models.messages import Message, Percent
from models.optimize import LinearCosts, best_capacity, optimizer_state
from models.plan_state import PlanState
from models.profile import PlanDemand
from models.scenario import Scenario
from models.strategy_result import StrategyResult

HOURS = 8760.0


@dataclass(frozen=True)
class Line:
    """Levelized cost per GPU-year of demand capacity: fixed + per_hour x hours used a year."""

    fixed: float
    per_hour: float
    max_hours: float = HOURS

    def at(self, hours: np.ndarray) -> np.ndarray:
        """Levelized cost of the line at hours used a year.

        Parameters
        ----------
        hours : numpy.ndarray
            Hours used per year [h per year].

        Returns
        -------
        numpy.ndarray
            fixed + per_hour x hours [currency per GPU-year of demand capacity].

        Notes
        -----
        c(h) = F + p h, F = ``fixed`` [currency per GPU-year], p = ``per_hour`` [currency per
        GPU-hour], h the hours used a year [h per year].
        """
        return self.fixed + self.per_hour * np.asarray(hours)


@dataclass
class BreakevenSection:
    """The plan document's "breakeven" section."""

    utilization: dict[str, Optional[float]]
    utilization_all_in: dict[str, Optional[float]]
    commitment_vs_on_demand: dict[str, Optional[float]]
    payback_month: dict[str, Optional[int]]
    payback_month_discounted: dict[str, Optional[int]]
    on_demand_price: Optional[float]
    server_price: Optional[float]
    directions: dict[str, Direction] = field(default_factory=dict)
    reasons: dict[str, Message] = field(default_factory=dict)
    # key "spot" in reasons: spot is off and every breakeven against it left out (spot_off)


@dataclass
class Charts:
    screening: dict
    load_duration: dict


def online_months(ctx: PlanState) -> np.ndarray:
    """Months in which the next server bought (one more on top of the position) takes work.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (its lead time, useful life and horizon).

    Returns
    -------
    numpy.ndarray
        1 in a month the server (or its replacement) is online, else 0 [-, (months,)].

    Notes
    -----
    o_m = servers online in month m of :func:`models.capacity.static_plan` of one server (its
    chain of replacements) [-].
    Servers already held are not counted: a marginal breakeven is about buying the next
    server, whose PV is spread over its own online months (issue 23).
    """
    return static_plan(ctx.scenario, Capacity(1), ctx.horizon, first_month=ctx.calendar.months[0]).servers_online(ctx.horizon)


def spot_off(ctx: PlanState) -> Optional[Message]:
    """Why spot can take no work in this plan, or None when it can.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (spot availability and waste).

    Returns
    -------
    Message or None
        Spot is off when its availability is 0 (it takes no share of the interruptible work)
        or when a checkpointed job cannot finish between interruptions (infeasible); the
        breakevens against spot are then left out and this sentence says so once.

    Notes
    -----
    Spot takes a share a of the interruptible overflow, a = availability when spot is
    feasible, else 0 (models.dispatch); with a = 0 a spot breakeven compares owning with a
    price nothing is bought at.
    """
    if ctx.scenario.spot.availability <= 0:
        return Message("Spot is off in this scenario (its availability is 0): no breakeven "
                       "against spot is shown.")
    if not ctx.spot_waste.feasible:
        return Message("Spot cannot run the interruptible work (a job cannot finish between "
                       "interruptions): no breakeven against spot is shown.")
    return None


def screening_lines(ctx: PlanState) -> dict[str, Line]:
    """Screening curves of every source: levelized cost per GPU-year against hours used per year.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (prices, calendar, wastes).

    Returns
    -------
    dict of str to Line
        ``owned`` (when a server comes online), ``on_demand``, ``spot`` (unless
        :func:`spot_off`) and each
        offer id; ``fixed`` [currency per GPU-year], ``per_hour`` [currency per GPU-hour used],
        ``max_hours`` [h per year], per GPU of demand capacity (the measured type).

    Notes
    -----
    With f_m the end-of-month discount factors, h_m the month's hours, o_m the next server's
    online months (:func:`online_months`), W = sum_m h_m o_m f_m (sum_m h_m f_m without one):
    owned: F = 8760 x PV_server / (G t W), p = sum_m u^own_m h_m o_m / W, max = 8760 a;
    on demand: p = sum_m u^od_m h_m o_m / W; spot: p = sum_m u^spot_m h_m o_m / W x (1 - w_f) /
    (1 - w_s); an offer: F = 8760 x PV_offer / (t_c sum_m h_m f_m), p = 0; u the PV of one GPU-hour
    by source (:class:`models.optimize.LinearCosts`) [currency per GPU-hour], G GPUs per server, t
    and t_c the owned and cloud throughputs, a the availability, w_f and w_s the failure and spot
    wastes [fraction].
    Owned, on demand and spot are levelized over the months the next server bought is online
    (the servers held are sunk and left out), so that their crossings compare like with like;
    commitments over the whole horizon.
    """
    s, lc, cal = ctx.scenario, optimizer_state(ctx)[0], ctx.calendar
    online = online_months(ctx)
    hours_pv = float(cal.hours @ ctx.end_factors)
    online_pv = float((cal.hours * online) @ ctx.end_factors)
    o = s.owned
    theta_c = s.on_demand.relative_throughput
    lines: dict[str, Line] = {}
    weights, weights_pv = (cal.hours * online, online_pv) if online_pv > 0 else (cal.hours,
                                                                                 hours_pv)
    if online_pv > 0:
        lines["owned"] = Line(
            HOURS * lc.server_pv / (o.gpus_per_server * o.relative_throughput * online_pv),
            float(lc.owned_unit_pv @ weights) / weights_pv, HOURS * o.availability)
    lines["on_demand"] = Line(0.0, float(lc.on_demand_unit_pv @ weights) / weights_pv)
    if spot_off(ctx) is None:
        # per hour of owned work it replaces: that hour does 1 - w_failure of useful work,
        # which spot bills at 1 / (1 - w_spot) hours
        lines["spot"] = Line(0.0, float(lc.spot_unit_pv @ weights) / weights_pv
                             * (1.0 - ctx.failure_waste.fraction)
                             / (1.0 - ctx.spot_waste.fraction))
    for offer_id, pv in lc.offer_pv.items():
        lines[offer_id] = Line(HOURS * pv / (theta_c * hours_pv), 0.0)
    return lines


def on_demand_line_all_months(ctx: PlanState, lc: LinearCosts) -> Line:
    """The on-demand screening curve levelized over the whole horizon (to compare commitments).

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (calendar, discount factors).
    lc : LinearCosts
        The optimizer's unit PV coefficients.

    Returns
    -------
    Line
        No fixed part; ``per_hour`` [currency per GPU-hour used].

    Notes
    -----
    p = (sum_m u_m h_m) / (sum_m h_m f_m), u_m the PV of one on-demand GPU-hour in month m
    [currency per GPU-hour], h_m the month's hours [h], f_m the end-of-month discount factor [-].
    """
    cal = ctx.calendar
    return Line(0.0, float(lc.on_demand_unit_pv @ cal.hours) / float(cal.hours @
                                                                      ctx.end_factors))


def crossing_hours(a: Line, b: Line) -> Optional[float]:
    """Hours per year at which two screening lines meet, if they meet in (0, max hours].

    Parameters
    ----------
    a : Line
        One screening line.
    b : Line
        The other.

    Returns
    -------
    float or None
        Hours [h per year]; None for parallel lines or a crossing outside (0, max hours].

    Notes
    -----
    h* = (F_b - F_a) / (p_a - p_b) [h per year], kept when 0 < h* <= min(max_a, max_b) + 1e-9;
    None when |p_a - p_b| < 1e-15. F the lines' fixed parts [currency per GPU-year], p their
    per-hour parts [currency per GPU-hour].
    """
    slope = a.per_hour - b.per_hour
    if abs(slope) < 1e-15:
        return None
    h = (b.fixed - a.fixed) / slope
    limit = min(a.max_hours, b.max_hours)
    return h if 0 < h <= limit + 1e-9 else None


def direction(a_name: str, a: Line, b_name: str, b: Line) -> Direction:
    """The side of the crossing on which ``a`` is cheaper (the steeper line wins below).

    Parameters
    ----------
    a_name : str
        Name of the source of ``a``.
    a : Line
        Its screening line.
    b_name : str
        Name of the other source.
    b : Line
        Its screening line.

    Returns
    -------
    Direction
        ``a_name`` cheaper "above" when its line is flatter, else "below".

    Notes
    -----
    when = "above" if p_a < p_b else "below", p the lines' per-hour costs [currency per GPU-hour].
    """
    if a.per_hour < b.per_hour:
        return Direction(a_name, "above", b_name)
    return Direction(a_name, "below", b_name)


def utilization_breakevens(ctx: PlanState, lines: dict[str, Line]
                           ) -> tuple[dict, dict, dict, dict]:
    """Marginal utilization breakevens: owned vs each cloud option, each commitment vs on demand.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan, for the on-demand line over all months.
    lines : dict of str to Line
        :func:`screening_lines`.

    Returns
    -------
    owned_vs : dict
        Cloud option to the utilization above or below which owning is cheaper, None when the
        lines do not cross [fraction of a year's hours].
    commit_vs : dict
        Offer id to the utilization at which it ties on demand [fraction of a year's hours].
    directions : dict
        Key (``utilization.<name>``, ``commitment_vs_on_demand.<offer>``) to its
        :class:`Direction`.
    reasons : dict
        Key to the :class:`Message` saying why a breakeven is missing.

    Notes
    -----
    u = h* / 8760 [fraction], h* of :func:`crossing_hours` of the owned line and each cloud line,
    and of each commitment's line and the all-months on-demand line
    (:func:`on_demand_line_all_months`).
    """
    owned_vs, commit_vs, directions, reasons = {}, {}, {}, {}
    owned = lines.get("owned")
    for name, line in lines.items():
        if name == "owned":
            continue
        key = f"utilization.{name}"
        if owned is None:
            owned_vs[name] = None
            reasons[key] = Message("owned servers never come online in the horizon")
            continue
        h = crossing_hours(owned, line)
        owned_vs[name] = None if h is None else h / HOURS
        directions[key] = direction("owned", owned, name, line)
        if h is None:
            top = owned.max_hours
            if owned.at(top) <= line.at(top):
                reasons[key] = Message("owning servers is cheaper than {other} at every "
                                       "achievable utilization (0 to {top})",
                                       {"other": name, "top": Percent(top / HOURS)})
            else:
                reasons[key] = Message("owning servers is dearer than {other} at every "
                                       "achievable utilization (0 to {top})",
                                       {"other": name, "top": Percent(top / HOURS)})
    on_demand = on_demand_line_all_months(ctx, optimizer_state(ctx)[0])
    for name, line in lines.items():
        if line.per_hour == 0 and line.fixed > 0:
            key = f"commitment_vs_on_demand.{name}"
            h = crossing_hours(line, on_demand)
            commit_vs[name] = None if h is None else h / HOURS
            directions[key] = direction(name, line, "on_demand", on_demand)
            if h is None:
                reasons[key] = Message("{offer} costs more than on demand even when used "
                                       "every hour", {"offer": name})
    return owned_vs, commit_vs, directions, reasons


# ---- all-in utilization breakevens on a flat profile ---------------------------------------

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
    [GPUs]; prices unchanged (:meth:`models.plan_state.PlanState.with_demand`).
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


# ---- price breakevens ------------------------------------------------------------------------

def field_range(section: str, key: str) -> tuple[float, float]:
    """The allowed range of a scenario field.

    Parameters
    ----------
    section : str
        Section of the scenario, e.g. ``"owned"``.
    key : str
        Field of the section, e.g. ``"server_price"``.

    Returns
    -------
    lo : float
        Lower bound, 0 when the field has none [the field's unit].
    hi : float
        Upper bound, inf when the field has none [the field's unit].
    """
    info = Scenario.model_fields[section].annotation.model_fields[key]
    meta = field_meta(info)
    lo = meta.get("ge", meta.get("gt", 0.0))
    hi = meta.get("le", meta.get("lt", np.inf))
    return float(lo), float(hi)


def tie_value(f: Callable[[float], float], x0: float, lo: float, hi: float
              ) -> tuple[Optional[float], Optional[Message]]:
    """A root of f inside [lo, hi] near x0.

    Parameters
    ----------
    f : callable
        PV cost gap of two plans [currency] as a function of a field's value.
    x0 : float
        The field's base value [the field's unit].
    lo : float
        Lower bound of the field [the field's unit].
    hi : float
        Upper bound of the field [the field's unit].

    Returns
    -------
    value : float or None
        Exact when f is linear, else brentq on a bracket from a grid [the field's unit].
    reason : Message or None
        Why the two plans do not tie inside the allowed range.

    Notes
    -----
    The secant through x_0 and x_1 (x_1 = 2 x_0 inside the range): x* = x_0 - f(x_0) (x_1 - x_0) /
    (f(x_1) - f(x_0)), kept when |f(x*)| <= 1e-6 x max(1, |f(x_0)|, |f(x_1)|); else brentq on the
    first sign change of f on a grid of lo, hi and x_0 x 10^k, k from -3 to 2.
    """
    x0 = min(max(x0, lo), hi)
    x1 = x0 * 2 if 0 < x0 * 2 <= hi else (x0 + hi) / 2 if x0 < hi else (lo + x0) / 2
    f0, f1 = f(x0), f(x1)
    if x1 == x0 or abs(f1 - f0) < 1e-12 * max(1.0, abs(f0)):
        return None, Message("the two plans cost the same amount more or less at any value")
    root = x0 - f0 * (x1 - x0) / (f1 - f0)
    if lo <= root <= hi and abs(f(root)) <= 1e-6 * max(1.0, abs(f0), abs(f1)):
        return float(root), None
    grid = np.unique(np.clip(np.concatenate(
        [[lo, x0, hi], x0 * np.geomspace(1e-3, 100, 40) if x0 > 0 else []]), lo, hi))
    values = [f(x) for x in grid]
    for a, b, fa, fb in zip(grid, grid[1:], values, values[1:]):
        if fa == 0:
            return float(a), None
        if fa * fb < 0:
            return float(brentq(f, a, b, xtol=1e-10 * max(1.0, x0))), None
    if values[-1] == 0:
        return float(grid[-1]), None
    return None, Message("no tie within the allowed range ({lo} to {hi}): the plan that owns "
                         "servers stays {which} throughout",
                         {"lo": f"{lo:,.6g}", "hi": f"{hi:,.6g}",
                          "which": "cheaper" if values[-1] < 0 else "dearer"})


def price_breakevens(ctx: PlanState, cloud: Capacity,
                     optimal: Optional[Capacity] = None) -> tuple[dict, dict]:
    """On-demand price and server price at which the best plan owning servers ties cloud_only.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan, re-priced at each trial value.
    cloud : Capacity
        The best cloud-only plan.
    optimal : Capacity, optional
        The best plan: when it owns a server it is the best plan owning servers (the least
        over all plans, so over those with a server too), and the search of that is spared.

    Returns
    -------
    values : dict
        ``on_demand_price`` [currency per GPU-hour, as entered] and ``server_price`` [owned
        currency per server], None where there is no tie in the field's allowed range.
    reasons : dict
        The :class:`Message` saying why a value is missing.

    Notes
    -----
    x* solves PV(owning; x) - PV(cloud_only; x) = 0 with x the on-demand price or the server
    price, found by :func:`tie_value` within the field's bounds (:func:`field_range`); owning =
    the optimal capacity when it holds servers, else :func:`models.optimize.best_capacity` with
    at least one server.
    """
    s = ctx.scenario
    try:
        owning = optimal if optimal is not None and optimal.servers >= 1 and \
            not s.server_types else best_capacity(ctx, min_servers=1)[0]
    except ValueError:
        why = Message("no plan with owned servers")
        return ({"on_demand_price": None, "server_price": None},
                {"on_demand_price": why, "server_price": why})

    def gap(section: str, key: str) -> Callable[[float], float]:
        def f(x: float) -> float:
            priced = ctx.repriced(s.with_changes(**{section: {key: x}}))
            return priced.pv(owning) - priced.pv(cloud)
        return f

    values, reasons = {}, {}
    for name, section, key, x0 in (
            ("on_demand_price", "on_demand", "price_per_gpu_hour",
             s.on_demand.price_per_gpu_hour),
            ("server_price", "owned", "server_price", s.owned.server_price)):
        root, why = tie_value(gap(section, key), x0, *field_range(section, key))
        values[name] = root
        if why is not None:
            reasons[name] = why
    return values, reasons


# ---- charts and the section ------------------------------------------------------------------

def load_duration(ctx: PlanState, r: StrategyResult, points: int = 200) -> dict:
    """Load-duration chart of the gross demand, with the recommended plan's capacity levels.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (sorted gross demand).
    r : StrategyResult
        The recommended strategy.
    points : int, default 200
        Points of the curve.

    Returns
    -------
    dict
        ``fraction_of_hours`` [fraction], ``gpus`` (demand exceeded for that share of hours)
        [GPUs of the measured type] and ``levels`` at their most [GPUs of the measured
        type]: ``committed`` when the plan commits GPUs; the top of the owned servers, named
        ``committed + owned`` when it sits on committed capacity, else ``owned``, when it
        has servers online. A plan with neither has no level (issue 23: a plan without
        servers showed "owned servers" at its committed level).

    Notes
    -----
    gpus_i = the i-th largest hourly gross demand of the plan, fraction_i = (i + 1) / N at
    ``points`` evenly spaced i, N the plan's hours; committed level = max_m c_m x t_c, owned top =
    committed + max_m n_m x w [GPUs].
    """
    demand = np.sort(ctx.tables.gross.sorted.ravel())[::-1]
    demand = demand[: ctx.calendar.total_hours]
    idx = np.unique(np.linspace(0, len(demand) - 1, points).round().astype(int))
    theta_c = ctx.scenario.on_demand.relative_throughput
    committed = float(r.committed_gpus_by_month.max(initial=0.0)) * theta_c
    owned = float(r.servers_online.max(initial=0.0)) * ctx.owned_per_server()
    levels: dict[str, float] = {}
    if committed > 0:
        levels["committed"] = committed
    if owned > 0:
        levels["committed + owned" if committed > 0 else "owned"] = committed + owned
    return {"fraction_of_hours": ((idx + 1) / len(demand)).tolist(),
            "gpus": demand[idx].tolist(), "levels": levels}


def screening_chart(lines: dict[str, Line], points: int = 25) -> dict:
    """Screening curves sampled for the chart, with their crossings.

    Parameters
    ----------
    lines : dict of str to Line
        :func:`screening_lines`.
    points : int, default 25
        Points per curve.

    Returns
    -------
    dict
        ``hours_per_year`` [h per year], ``curves`` [currency per GPU-year], ``max_hours``
        [h per year] and ``crossings`` (sources, ``hours_per_year``, ``utilization``
        [fraction], ``cost_per_gpu_year`` [currency per GPU-year]).

    Notes
    -----
    Each curve c(h) = F + p h at 25 hours h = 0 .. 8760 (:meth:`Line.at`); each crossing at h* of
    :func:`crossing_hours`, utilization = h* / 8760 [fraction].
    """
    hours = np.linspace(0, HOURS, points)
    crossings = []
    names = list(lines)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            h = crossing_hours(lines[a], lines[b])
            if h is not None:
                crossings.append({"sources": [a, b], "hours_per_year": h,
                                  "utilization": h / HOURS,
                                  "cost_per_gpu_year": float(lines[a].at(h))})
    return {"hours_per_year": hours.tolist(),
            "curves": {n: line.at(hours).tolist() for n, line in lines.items()},
            "max_hours": {n: line.max_hours for n, line in lines.items()},
            "crossings": crossings}


def payback(results: dict[str, StrategyResult], horizon: int) -> tuple[dict, dict, dict]:
    """Payback months of optimal, staged and proposed against on demand.

    Parameters
    ----------
    results : dict of str to StrategyResult
        Strategies priced, by name; ``on_demand`` is the baseline.
    horizon : int
        Months of the horizon [months].

    Returns
    -------
    nominal : dict
        First month, 1-based, from which the cumulative saving against on demand is positive
        and stays at or above zero [months]; None if never within the horizon, when the plan
        is never dearer than on demand in any month (nothing to pay back), or n/a for a plan
        that invests nothing up front.
    discounted : dict
        The same with discounted cumulative costs [months].
    reasons : dict
        ``payback_month.<name>`` and ``payback_month_discounted.<name>`` to the
        :class:`Message` saying why a value is missing (none for "never").

    Notes
    -----
    For optimal, staged and proposed: month = :func:`models.finance.payback_month` (C_plan[:H],
    C_on_demand[:H]), C the cumulative cost, nominal then discounted [currency], H the horizon
    [months]; n/a when capital outlay <= 0.
    """
    base = results["on_demand"]
    nominal, discounted, reasons = {}, {}, {}
    for name in ("optimal", "staged", "proposed"):
        r = results.get(name)
        if r is None and name == "staged":
            continue
        if r is None:
            nominal[name] = discounted[name] = None
            reasons[f"payback_month.{name}"] = Message("no proposed plan was given")
        elif r.capital_outlay() <= 0:
            nominal[name] = discounted[name] = None
            reasons[f"payback_month.{name}"] = Message(
                "n/a: {plan} invests nothing up front", {"plan": name})
        else:
            for out, key, plan_cum, base_cum in (
                    (nominal, "payback_month", r.cumulative, base.cumulative),
                    (discounted, "payback_month_discounted", r.discounted_cumulative,
                     base.discounted_cumulative)):
                out[name] = payback_month(plan_cum[:horizon], base_cum[:horizon])
                if never_dearer(plan_cum[:horizon], base_cum[:horizon]):
                    reasons[f"{key}.{name}"] = Message(
                        "never costs more than on demand in any month: nothing to pay back")
    return nominal, discounted, reasons


def breakeven_section(ctx: PlanState, results: dict[str, StrategyResult],
                      recommendation: str) -> tuple[BreakevenSection, Charts]:
    """The breakeven section of the plan and the charts behind it.

    Parameters
    ----------
    ctx : PlanState
        Context whose strategies are compared.
    results : dict of str to StrategyResult
        Strategies priced, ``on_demand`` and ``cloud_only`` among them.
    recommendation : str
        Name of the recommended strategy.

    Returns
    -------
    section : BreakevenSection
        Utilization breakevens (marginal and all-in), payback and price ties.
    charts : Charts
        The screening and load-duration charts.
    """
    lines = screening_lines(ctx)
    owned_vs, commit_vs, directions, reasons = utilization_breakevens(ctx, lines)
    all_in, all_in_directions, all_in_reasons = all_in_breakevens(ctx, list(owned_vs))
    nominal, discounted, payback_reasons = payback(results, ctx.horizon)
    off = spot_off(ctx)
    if off is not None:
        reasons["spot"] = off
    prices, price_reasons = price_breakevens(ctx, results["cloud_only"].capacity,
                                             results["optimal"].capacity)
    section = BreakevenSection(
        utilization=owned_vs, utilization_all_in=all_in, commitment_vs_on_demand=commit_vs,
        payback_month=nominal, payback_month_discounted=discounted,
        on_demand_price=prices["on_demand_price"], server_price=prices["server_price"],
        directions={**directions, **all_in_directions},
        reasons={**reasons, **all_in_reasons, **payback_reasons, **price_reasons})
    return section, Charts(screening_chart(lines),
                           load_duration(ctx, results[recommendation]))
