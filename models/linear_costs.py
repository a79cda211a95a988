"""The optimizer's linear PV coefficients (design 5.3): per server, per GPU of each offer, per
GPU-hour of each source and month, read off the cost kernel once per plan context, the grid's
bounds (the peak and the screening-curve bound), and the optimizer's state (coefficients and
commitment splits) cached in the context.

Separate from the candidate search (models.candidate_grid) because the screening curves
(models.screening) and the staged MILP (models.staged_problem, staged_convexity) read the same
coefficients without searching a grid.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from models.capacity import Capacity, CapacityPlan
from models.costs import cost_lines, present_value
from models.dispatch import Volumes
from models.scenario_types import MAX_SERVERS
from models.splits import CommitmentSplits
from models.plan_state import PlanState


@dataclass(frozen=True)
class LinearCosts:
    """PV cost coefficients of a plan context, read off the cost kernel (models/costs.py).

    The PV of a static capacity is ``base_pv + N server_pv + sum_k C_k offer_pv[k] + sum over
    months and sources of volume x unit PV`` plus three terms that are not linear: the setup
    fee of a strategy that rents cloud GPUs (``setup_pv``), data kept by the servers in months
    with no work (``idle_data_pv``, when any server is online) and a support minimum (at most
    ``support_min_pv``). Every coefficient is the kernel's own PV of a unit input, so the
    optimizer prices exactly as the engine does (tax, support and timing included).
    """

    base_pv: float                 # what every strategy pays (data at cloud prices)
    server_pv: float               # one server and its replacements, no busy energy
    server_outlay: float           # nominal capex of one server (tie-breaks)
    owned_unit_pv: np.ndarray      # per demand-unit GPU-hour owned, by month
    on_demand_unit_pv: np.ndarray  # per demand-unit GPU-hour on demand, by month
    spot_unit_pv: np.ndarray       # per demand-unit spot GPU-hour billed, by month
    offer_pv: dict[str, float]     # per committed GPU over the horizon, renewals included
    offer_outlay: dict[str, float]  # upfront payments per committed GPU, nominal
    setup_pv: float                # setup fee when any cloud GPU is rented
    idle_data_pv: float            # data charges of idle months at owned prices, if servers
    idle_data_held_pv: float       # the same with no new server (servers of the position)
    support_min_pv: float          # upper bound of what a support minimum can add
    # per demand-unit GPU-hour of work on each server type, by month (a fleet, issue 26)
    owned_unit_pv_by_type: dict            # the same of each server type, by type id


def linear_costs(ctx: PlanState) -> LinearCosts:
    """The PV cost coefficients of a context: the kernel's PV of a unit input minus that of none.

    Parameters
    ----------
    ctx : PlanState
        Context whose cost kernel is read (prices, position, demand).

    Returns
    -------
    LinearCosts
        Coefficients [currency per server, per committed GPU, per GPU-hour of demand units by
        month, ...; see :class:`LinearCosts`], positive for a cost.

    Notes
    -----
    Each coefficient is the PV of the linear cost lines (:func:`models.costs.cost_lines`,
    ``linear=True``) of a unit input minus those of the position alone, subtracted month by month:
    coefficient = :func:`models.costs.present_value` (lines(position + unit) - lines(position));
    unit PVs of one GPU-hour of a source in each month m: u_m = PV(lines with volume 1 in month
    m) - PV(lines without) [currency per GPU-hour]; support_min_pv = min x sum_m fx_m f_m.
    The two sets of lines are subtracted month by month before discounting: a unit's effect can
    be small beside what every strategy pays (e.g. cloud egress), and a difference of two totals
    would lose its digits.
    """
    s, book, H = ctx.scenario, ctx.book, ctx.horizon
    gross = ctx.tables.gross.totals.reshape(-1, 1)
    zero = np.zeros((H, 1))
    idle = Volumes(zero, zero, zero, zero, zero, zero, gross)

    def lines(plan: CapacityPlan, v: Volumes = idle, **switches):
        return cost_lines(book, plan, v, linear=True, **switches)

    empty = ctx.position           # what every strategy holds before any decision
    held = lines(empty)
    base = float(present_value(book, held)[0])

    def added(plan: CapacityPlan, v: Volumes = idle, against=held, **switches) -> np.ndarray:
        """PV of the lines of ``plan`` minus the lines of ``against`` [currency, (n,)]."""
        more = lines(plan, v, **switches)
        diff = {name: more.get(name, 0.0) - against.get(name, 0.0)
                for name in sorted(set(more) | set(against))}   # a fixed order of sums
        return present_value(book, {k: np.broadcast_to(x, more.shape if k in more else
                                                       against[k].shape)
                                    for k, x in diff.items()})

    def unit_pv(source: str, type_id=None) -> np.ndarray:
        parts = {"committed": zero, "owned": zero, "spot": zero, "on_demand": zero}
        parts[source] = np.eye(H)
        by_type = {k.id: np.eye(H) if k.id == type_id else np.zeros((H, H))
                   for k in ctx.fleet}
        v = Volumes(parts["committed"], parts["owned"], parts["spot"], parts["on_demand"],
                    zero, zero, gross, by_type)
        return added(empty, v)

    owned_by_type = {k.id: unit_pv("owned", k.id) for k in ctx.fleet}
    one_server = ctx.capacity_plan(Capacity(1))
    offers = {o.id: ctx.capacity_plan(Capacity(0, {o.id: 1})) for o in s.commitments}
    server_lines = lines(one_server).full()
    first_offer = offers[s.commitments[0].id] if s.commitments else None
    return LinearCosts(
        base_pv=base, server_pv=float(added(one_server)[0]),
        server_outlay=float(server_lines["capex"].sum()),
        owned_unit_pv=owned_by_type[ctx.fleet[0].id], on_demand_unit_pv=unit_pv("on_demand"),
        spot_unit_pv=unit_pv("spot"),
        offer_pv={k: float(added(plan)[0]) for k, plan in offers.items()},
        offer_outlay={k: float(lines(plan).full()["commitment_upfront"].sum())
                      for k, plan in offers.items()},
        setup_pv=(float(added(first_offer, setup=True, against=lines(first_offer))[0])
                  if first_offer is not None else _setup_pv(ctx, added, lines)),
        idle_data_pv=float(added(one_server, idle_month_data=True,
                                 against=lines(one_server))[0]),
        idle_data_held_pv=float(added(empty, idle_month_data=True)[0]),
        support_min_pv=book.support_minimum * float(
            (book.convert("cloud", np.ones((book.months, 1)))[:, 0] * book.end[:, 0]).sum()),
        owned_unit_pv_by_type=owned_by_type)


def _setup_pv(ctx: PlanState, added, lines) -> float:
    """The setup fee's PV when there is no commitment offer to mark cloud use with: price one
    on-demand GPU-hour in month 1 with and without the fee."""
    H = ctx.horizon
    gross = ctx.tables.gross.totals.reshape(-1, 1)
    zero = np.zeros((H, 1))
    one = zero.copy()
    one[0] = 1.0
    v = Volumes(zero, zero, zero, one, zero, zero, gross)
    return float(added(ctx.position, v, setup=True, against=lines(ctx.position, v))[0])


def grid_bounds(ctx: PlanState, lc: LinearCosts, use_spot: bool) -> tuple[int, int]:
    """Largest server count and committed GPUs worth considering (peak and screening bounds).

    Parameters
    ----------
    ctx : PlanState
        Context of the plan; the bounds are cached in it.
    lc : LinearCosts
        PV coefficients of the context.
    use_spot : bool
        Whether spot takes interruptible overflow.

    Returns
    -------
    n_max : int
        Largest server count [servers].
    c_max : int
        Largest committed total [GPUs].

    Notes
    -----
    (n_max, c_max) = the module's ``_grid_bounds`` (peak and screening bounds), cached per spot
    choice [servers, GPUs].
    """
    key = ("bounds", use_spot)
    if key not in ctx.cache.optimizer:
        ctx.cache.optimizer[key] = _grid_bounds(ctx, lc, use_spot)
    return ctx.cache.optimizer[key]


def _grid_bounds(ctx: PlanState, lc: LinearCosts, use_spot: bool) -> tuple[int, int]:
    o = ctx.scenario.owned
    theta_c = ctx.scenario.on_demand.relative_throughput
    unit = o.gpus_per_server * o.availability * o.relative_throughput
    peak = ctx.tables.peak_gross_gpus
    n_max = min(max(0, math.ceil(peak / unit - 1e-9)), MAX_SERVERS)
    if lc.idle_data_pv < 0:   # one server keeps the data of months with no work at owned prices
        n_max = max(n_max, 1)
    c_max = max(0, math.ceil(peak / theta_c - 1e-9))
    if lc.setup_pv > 0 or lc.support_min_pv > 0 or lc.idle_data_pv != 0 or len(
            ctx.position.servers) or len(ctx.position.commitments) or (
            lc.owned_unit_pv < 0).any():
        return n_max, c_max  # fixed terms or cheaper owned data: keep the full peak range
    # Dropping the top server saves its fixed cost and loses at most saving(x) per unit. Dropping
    # a commitment block also moves the owned layer down, which can add busy energy in every
    # hour: the block must beat that too for the bound to hold.
    energy_all_hours = float(lc.owned_unit_pv @ ctx.calendar.hours)
    fixed = [lc.server_pv / unit]
    fixed += [v / theta_c - energy_all_hours for v in lc.offer_pv.values()]
    if min(fixed) <= 0:
        return n_max, c_max
    dearest = np.maximum(lc.on_demand_unit_pv, lc.spot_unit_pv if use_spot else 0.0)
    table = ctx.tables.gross

    def saving(level: float) -> float:
        """PV of the dearest variable price over the hours in which demand exceeds level."""
        above = (table.sorted > level).sum(axis=1)
        return float(dearest @ above.astype(float))

    # saving() falls as the level rises: bisect for the first level that cannot pay its way
    lo, hi = 0.0, float(peak)
    if saving(lo) < min(fixed):
        hi = 0.0
    for _ in range(60):
        if hi - lo <= 1e-6 * max(1.0, peak):
            break
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if saving(mid) < min(fixed) else (mid, hi)
    x_max = hi
    biggest_step = max([unit] + [ob.block_gpus * theta_c for ob in ctx.scenario.commitments])
    bound = x_max + biggest_step
    return min(n_max, math.ceil(bound / unit)), min(c_max, math.ceil(bound / theta_c))


def optimizer_state(ctx: PlanState) -> tuple[LinearCosts, CommitmentSplits]:
    """The PV coefficients and commitment splits of a context, built once.

    Parameters
    ----------
    ctx : PlanState
        The plan's context; the state is cached in it.

    Returns
    -------
    lc : LinearCosts
        PV coefficients.
    splits : CommitmentSplits
        Cheapest splits of committed totals.

    Notes
    -----
    lc = :func:`linear_costs` (ctx); splits = :class:`models.splits.CommitmentSplits` of the
    offers' unit PVs and outlays; both cached in the context.
    """
    state = ctx.cache.optimizer.get("state")
    if state is None:
        lc = linear_costs(ctx)
        splits = CommitmentSplits(ctx.scenario.commitments, lc.offer_pv, lc.offer_outlay)
        state = ctx.cache.optimizer["state"] = (lc, splits)
    return state
