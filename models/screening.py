"""Screening curves and the marginal utilization breakevens (design 5.2; issue 11 item 5).

Each source's levelized PV cost per GPU-year of capacity against the hours a year it is used
(owned a_o + b_o h, on demand and spot b h, a commitment a flat a_k), and where two curves cross.
They leave out storage, egress, the setup fee and the support minimum, and are about buying the
next server on top of the servers held: its purchase, running costs, resale and tax, compared
with the cloud over the months that server is online (during a lead time both sides rent the
same cloud). Every crossing states its direction.

Separate from the all-in and price breakevens (models.all_in_breakeven, price_breakeven),
which run the whole engine: these are closed-form lines, and the screening chart draws them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from models.breakeven_words import Direction
from models.capacity import Capacity
from models.static_cohorts import static_plan
from models.messages import Message, Percent
from models.linear_costs import LinearCosts, optimizer_state
from models.plan_state import PlanState


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
    o_m = servers online in month m of :func:`models.static_cohorts.static_plan` of one server (its
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
    by source (:class:`models.linear_costs.LinearCosts`) [currency per GPU-hour], G GPUs per
    server, t
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
