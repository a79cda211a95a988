"""The exact cheapest mix of owned servers, commitments, spot and on demand (design 5.1, 5.3).

Method
------
Dispatch depends only on the number of servers N and the total committed GPUs C (every offer
serves the same way, constant over the horizon), and every cost line is linear in the monthly
volumes. So:

1. PV cost coefficients are computed once (``LinearCosts``): per server, per GPU of each offer,
   per GPU-hour of each source and month.
2. The cheapest split of each total C over the offers (whole blocks) is a min-cost coin change.
3. All (N, C) candidates are costed at once from the sorted monthly demand tables: each volume
   is a binary search and a prefix-sum look-up (models/dispatch.py), O(months x log hours).
4. Non-linear terms (a cloud support minimum) are bounded, and every candidate whose lower bound
   can still win is costed exactly by the full engine.
The grid is bounded by the peak (capacity above the peak only adds cost) and, where no fixed
cloud charge depends on using the cloud at all, by the screening-curve bound: a capacity level
whose hours of use cannot pay its cheapest fixed cost at the dearest variable price is never
worth adding.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from models.capacity import Capacity, CapacityPlan
from models.costs import cost_lines, present_value
from models.dispatch import Volumes, dispatch
from models.plan_state import PlanState
from models.scenario import MAX_SERVERS
from models.splits import CommitmentSplits
from models.strategy_result import StrategyResult


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
    owned_unit_pv_by_type: Optional[dict] = None


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
        by_type = None
        if s.server_types:
            by_type = {k.id: np.eye(H) if k.id == type_id else np.zeros((H, H))
                       for k in ctx.fleet}
        v = Volumes(parts["committed"], parts["owned"], parts["spot"], parts["on_demand"],
                    zero, zero, gross, by_type)
        return added(empty, v)

    one_server = ctx.capacity_plan(Capacity(1))
    offers = {o.id: ctx.capacity_plan(Capacity(0, {o.id: 1})) for o in s.commitments}
    server_lines = lines(one_server).full()
    first_offer = offers[s.commitments[0].id] if s.commitments else None
    return LinearCosts(
        base_pv=base, server_pv=float(added(one_server)[0]),
        server_outlay=float(server_lines["capex"].sum()),
        owned_unit_pv=unit_pv("owned", ctx.fleet[0].id), on_demand_unit_pv=unit_pv("on_demand"),
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
        owned_unit_pv_by_type=({k.id: unit_pv("owned", k.id) for k in ctx.fleet}
                               if s.server_types else None))


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
    if key not in ctx.optimizer_cache:
        ctx.optimizer_cache[key] = _grid_bounds(ctx, lc, use_spot)
    return ctx.optimizer_cache[key]


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


@dataclass
class Candidates:
    servers: np.ndarray
    committed_total: np.ndarray
    split_index: np.ndarray
    lower_pv: np.ndarray
    upper_pv: np.ndarray
    outlay: np.ndarray
    use_spot: bool
    approximate: bool = False      # from a coarse-to-fine search, not a proof

    @classmethod
    def join(cls, parts: list["Candidates"]) -> "Candidates":
        """Candidates of several batches in one.

        Parameters
        ----------
        parts : list of Candidates
            Batches with the same ``use_spot``.

        Returns
        -------
        Candidates
            Their arrays concatenated (not marked approximate).
        """
        fields = ("servers", "committed_total", "split_index", "lower_pv", "upper_pv", "outlay")
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in fields),
                   parts[0].use_spot)


LIMIT = 60_000   # candidates costed point by point; larger grids: see search()
LEVELS = 20_000  # committed totals searched one by one (exact); beyond: coarse to fine
CHUNK = 15_000   # candidates dispatched at once: (months x CHUNK) arrays stay small


def price_candidates(ctx: PlanState, lc: LinearCosts, splits: CommitmentSplits,
                     use_spot: bool, servers: np.ndarray, split_index: np.ndarray
                     ) -> Candidates:
    """PV cost bounds of (servers, committed total) pairs; exact when the bounds agree.

    Parameters
    ----------
    ctx : PlanState
        Context whose demand tables dispatch the candidates.
    lc : LinearCosts
        PV coefficients of the context.
    splits : CommitmentSplits
        Cheapest commitment splits, by committed total.
    use_spot : bool
        Whether spot takes interruptible overflow.
    servers : numpy.ndarray
        New servers of each candidate [servers, (k,)].
    split_index : numpy.ndarray
        Committed total of each candidate in steps of ``splits.step`` [steps, (k,)].

    Returns
    -------
    Candidates
        Lower and upper PV bounds (the upper adds the most a support minimum can) [currency],
        committed totals [GPUs] and nominal capital outlay [currency] of each candidate.

    Notes
    -----
    With v the volumes of :func:`models.dispatch.dispatch` at committed c and n servers:
    lower = PV_0 + n PV_server + PV_split(c) + sum_m (u^own_m owned_m + u^od_m on_demand_m +
    u^spot_m spot_m) + PV_setup [when the cloud is used] + (PV_idle_data if n > 0 else
    PV_idle_data_held); upper = lower + PV_support_min; outlay = n x server outlay + split outlay
    [currency].
    """
    parts = []
    for lo in range(0, len(servers), CHUNK):
        n = servers[lo:lo + CHUNK]
        idx = split_index[lo:lo + CHUNK]
        split_pv, split_outlay, _ = splits.at(idx)
        committed = idx * splits.step
        v = dispatch(ctx.tables, ctx.committed_capacity(committed), ctx.owned_capacity(n),
                     failure_waste=ctx.tables_failure_waste,
                     spot_waste=ctx.spot_waste.fraction,
                     spot_share=ctx.scenario.spot.availability if use_spot else 0.0)
        variable = (lc.owned_unit_pv @ v.owned + lc.on_demand_unit_pv @ v.on_demand
                    + lc.spot_unit_pv @ v.spot)
        held_cloud = any(c.gpus > 0 for c in ctx.position.commitments)
        uses_cloud = held_cloud | (committed > 0) | (v.spot.sum(axis=0) > 0) | (
            v.on_demand.sum(axis=0) > 1e-9)
        lower = (lc.base_pv + n * lc.server_pv + split_pv + variable
                 + np.where(uses_cloud, lc.setup_pv, 0.0)
                 + np.where(n > 0, lc.idle_data_pv, lc.idle_data_held_pv))
        upper = lower + lc.support_min_pv  # any month with cloud spend (data too) may hit it
        parts.append(Candidates(n, committed, idx, lower, upper,
                                n * lc.server_outlay + split_outlay, use_spot))
    return Candidates.join(parts)


def axis(lo: int, hi: int, step: int) -> np.ndarray:
    """lo, lo + step, ... and hi itself.

    Parameters
    ----------
    lo : int
        First value.
    hi : int
        Last value, always included.
    step : int
        Step.

    Returns
    -------
    numpy.ndarray
        The values, ascending, without repeats.

    Notes
    -----
    x = lo, lo + s, lo + 2 s, ... <= hi, and hi itself, s = ``step``.

    Examples
    --------
    >>> axis(0, 10, 4)
    array([ 0,  4,  8, 10])
    """
    return np.unique(np.r_[np.arange(lo, hi + 1, step), hi])


def search(ctx: PlanState, lc: LinearCosts, splits: CommitmentSplits, use_spot: bool,
           n_range: tuple[int, int], levels: int) -> Candidates:
    """Candidates that provably hold the optimum of the grid.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan whose grid is searched.
    lc : LinearCosts
        PV coefficients of ``ctx``.
    splits : CommitmentSplits
        Cheapest split of each committed total.
    use_spot : bool
        May spot take interruptible overflow?
    n_range : tuple of int
        Server counts searched, fewest and most [servers].
    levels : int
        Committed totals 0, g, 2g, ... to search.

    Returns
    -------
    Candidates
        The candidates costed (PV bounds [currency]).

    Notes
    -----
    (n_hi - n_lo + 1) x L <= LIMIT: every (n, c) point of :func:`price_candidates`; L <= LEVELS:
    :func:`convex_in_servers`; else :func:`coarse_to_fine`.
    Up to LIMIT points: every point. Larger grids, up to LEVELS committed totals: for each
    total, the cheapest server count by binary search, since with the committed level fixed
    the PV is convex in the server count (the dispatch cost is a convex function of the
    committed-plus-owned level, design 5.3, and the server costs are linear); the points
    where the non-linear terms step (no server, and servers for the whole peak without any
    cloud) are added. Beyond that (millions of committed totals): a coarse-to-fine search
    of both counts, marked ``approximate``.
    """
    n_lo, n_hi = n_range
    if (n_hi - n_lo + 1) * levels <= LIMIT:
        grid_n, grid_c = np.meshgrid(np.arange(n_lo, n_hi + 1), np.arange(levels), indexing="ij")
        return price_candidates(ctx, lc, splits, use_spot, grid_n.ravel(), grid_c.ravel())
    if levels <= LEVELS:
        return convex_in_servers(ctx, lc, splits, use_spot, n_range, levels)
    return coarse_to_fine(ctx, lc, splits, use_spot, n_range, levels)


def convex_in_servers(ctx: PlanState, lc: LinearCosts, splits: CommitmentSplits,
                      use_spot: bool, n_range: tuple[int, int], levels: int) -> Candidates:
    """Per committed total, the server count where the PV stops falling, with its neighbours.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan to optimize.
    lc : LinearCosts
        Its unit PV coefficients.
    splits : CommitmentSplits
        Splits of committed totals over the offers.
    use_spot : bool
        Spot allowed for interruptible overflow.
    n_range : tuple of int
        Range of server counts searched [servers].
    levels : int
        Committed totals, each searched for its best count.

    Returns
    -------
    Candidates
        For each total, the count found by binary search on the sign of PV(n + 1) - PV(n)
        (exact for a convex sequence), n - 1, n + 1 and the two ends of the range.

    Notes
    -----
    For each committed total c: the smallest n in [n_lo, n_hi] with PV(n + 1, c) >= PV(n, c), by
    bisection; candidates n, n - 1, n + 1, n_lo and n_hi (clipped), costed by
    :func:`price_candidates` [servers].
    """
    n_lo, n_hi = n_range
    c = np.arange(levels)
    lo, hi = np.full(levels, n_lo), np.full(levels, n_hi)
    while (hi > lo).any():
        mid = (lo + hi) // 2
        pair = price_candidates(ctx, lc, splits, use_spot, np.r_[mid, np.minimum(mid + 1, n_hi)],
                                np.r_[c, c])
        rising = pair.lower_pv[levels:] >= pair.lower_pv[:levels]
        hi = np.where(rising & (hi > lo), mid, hi)
        lo = np.where(~rising & (hi > lo), mid + 1, lo)
    best = lo
    n = np.concatenate([best, np.clip(best - 1, n_lo, n_hi), np.clip(best + 1, n_lo, n_hi),
                        np.full(levels, n_lo), np.full(levels, n_hi)])
    pairs = np.unique(np.stack([n, np.tile(c, 5)]), axis=1)
    return price_candidates(ctx, lc, splits, use_spot, pairs[0], pairs[1])


def coarse_to_fine(ctx: PlanState, lc: LinearCosts, splits: CommitmentSplits,
                   use_spot: bool, n_range: tuple[int, int], levels: int) -> Candidates:
    """A coarse-to-fine search of both counts, for grids too large to cost.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (a very large grid).
    lc : LinearCosts
        Unit PV coefficients.
    splits : CommitmentSplits
        Committed totals' cheapest splits.
    use_spot : bool
        Interruptible overflow on spot or not.
    n_range : tuple of int
        Lowest and highest server count [servers].
    levels : int
        Committed totals in the grid.

    Returns
    -------
    Candidates
        The final window at step 1, marked ``approximate``. Each pass keeps +-2 steps around
        the cheapest point and refines the steps eightfold.

    Notes
    -----
    Steps s_n = ceil((n_hi - n_lo + 1) / S), s_c = ceil(L / S), S = max(2, floor(sqrt(LIMIT)));
    each pass costs the grid at those steps (:func:`price_candidates`), keeps the window of +-2
    steps around the cheapest point and sets s = max(1, floor(s / 8)), until both steps are 1.
    """
    n_lo, n_hi = n_range
    c_lo, c_hi = 0, levels - 1
    side = max(2, int(math.sqrt(LIMIT)))
    step_n = max(1, math.ceil((n_hi - n_lo + 1) / side))
    step_c = max(1, math.ceil((c_hi - c_lo + 1) / side))
    while True:
        ns, cs = axis(n_lo, n_hi, step_n), axis(c_lo, c_hi, step_c)
        grid_n, grid_c = np.meshgrid(ns, cs, indexing="ij")
        cand = price_candidates(ctx, lc, splits, use_spot, grid_n.ravel(), grid_c.ravel())
        if step_n == 1 and step_c == 1:
            cand.approximate = True
            return cand
        finite = np.where(np.isfinite(cand.lower_pv), cand.lower_pv, np.inf)
        best = int(np.argmin(finite))
        n_best, c_best = int(cand.servers[best]), int(cand.split_index[best])
        n_lo, n_hi = max(n_range[0], n_best - 2 * step_n), min(n_range[1], n_best + 2 * step_n)
        c_lo, c_hi = max(0, c_best - 2 * step_c), min(levels - 1, c_best + 2 * step_c)
        step_n, step_c = max(1, step_n // 8), max(1, step_c // 8)


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
    state = ctx.optimizer_cache.get("state")
    if state is None:
        lc = linear_costs(ctx)
        splits = CommitmentSplits(ctx.scenario.commitments, lc.offer_pv, lc.offer_outlay)
        state = ctx.optimizer_cache["state"] = (lc, splits)
    return state


def candidates(ctx: PlanState, use_spot: bool, n_range: tuple[int, int] | None = None
               ) -> Candidates:
    """Costed candidates with server counts in a range; cached per context.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan; the candidates are cached in it.
    use_spot : bool
        Whether spot takes interruptible overflow (cached apart).
    n_range : tuple of int, optional
        Fewest and most servers [servers]; the whole bounded grid when None.

    Returns
    -------
    Candidates
        Exhaustive, or the final window of a coarse-to-fine search.

    Notes
    -----
    n_max, c_max of :func:`grid_bounds`; L = :meth:`models.splits.CommitmentSplits.levels` (c_max);
    a grid of (n_max + 1) x L <= LIMIT points is costed whole once (:func:`search`), else the
    window lo <= n <= hi is searched.
    """
    lc, splits = optimizer_state(ctx)
    n_max, c_max = grid_bounds(ctx, lc, use_spot)
    levels = splits.levels(c_max)
    lo, hi = (0, n_max) if n_range is None else (n_range[0], min(n_range[1], n_max))
    if lo > hi:
        lo = hi = n_range[0]   # asked for more servers than the peak needs: the fewest
    if (n_max + 1) * levels <= LIMIT and hi <= n_max:
        # small grid: cost all of it once, every query is a subset (cloud_only, optimal,
        # the best plan with servers for the price breakevens)
        key = ("grid", use_spot)
        if key not in ctx.optimizer_cache:
            ctx.optimizer_cache[key] = search(ctx, lc, splits, use_spot, (0, n_max), levels)
        grid = ctx.optimizer_cache[key]
        keep = (grid.servers >= lo) & (grid.servers <= hi)
        return Candidates(*(getattr(grid, f)[keep] for f in (
            "servers", "committed_total", "split_index", "lower_pv", "upper_pv", "outlay")),
            use_spot)
    key = ("candidates", use_spot, lo, hi)
    if key not in ctx.optimizer_cache:
        ctx.optimizer_cache[key] = search(ctx, lc, splits, use_spot, (lo, hi), levels)
    return ctx.optimizer_cache[key]


def best_capacity(ctx: PlanState, *, allow_servers: bool = True, min_servers: int = 0
                  ) -> tuple[Capacity, float]:
    """The PV-cost minimum over whole servers and whole blocks.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan to optimize.
    allow_servers : bool, default True
        False: cloud only.
    min_servers : int, default 0
        Fewest new servers [servers].

    Returns
    -------
    capacity : Capacity
        The cheapest static decision; ties go to the smaller capital outlay.
    pv : float
        Its PV cost [currency].

    Raises
    ------
    ValueError
        No candidate with at least ``min_servers`` servers.

    Notes
    -----
    (n*, c*) = argmin over the candidates of :func:`candidates` (spot and no spot) of PV(n, c),
    with PV the lower bound of :func:`price_candidates` (exact PV of :meth:`PlanState.pv` when a
    support minimum applies); among PVs within 1e-9 x max(1, |PV_min|), the least capital outlay,
    then the fewest servers, then spot.
    Exact on grids of up to LIMIT points (every point costed).
    """
    lc, splits = optimizer_state(ctx)
    pool: list[tuple[float, float, Capacity]] = []
    n_range = (0, 0) if not allow_servers else (min_servers, 10**12)
    for use_spot in (True, False):
        cand = candidates(ctx, use_spot, n_range)
        if cand.approximate:
            ctx.optimizer_cache["approximate"] = True
        keep = cand.servers >= min_servers
        if not allow_servers:
            keep &= cand.servers == 0
        keep &= np.isfinite(cand.lower_pv)
        if not keep.any():
            continue
        best_upper = cand.upper_pv[keep].min()
        tolerance = 1e-9 * max(1.0, abs(best_upper))
        contenders = np.flatnonzero(keep & (cand.lower_pv <= best_upper + tolerance))
        for i in contenders:
            committed = {k: v for k, v in splits.split(int(cand.split_index[i])).items()}
            capacity = Capacity(int(cand.servers[i]), committed, cand.use_spot)
            pv = float(cand.lower_pv[i])
            if lc.support_min_pv > 0:  # the support minimum is not linear: exactly
                pv = ctx.pv(capacity)
            pool.append((pv, float(cand.outlay[i]), capacity))
    if not pool:
        raise ValueError(f"no candidate with at least {min_servers} servers")
    best_pv = min(item[0] for item in pool)
    tolerance = 1e-9 * max(1.0, abs(best_pv))
    tied = [item for item in pool if item[0] <= best_pv + tolerance]
    pv, _, capacity = min(tied, key=lambda item: (item[1], item[2].servers, not item[2].use_spot))
    return capacity, pv


def find_optimal(ctx: PlanState) -> dict[str, StrategyResult]:
    """Strategies ``cloud_only`` (no servers) and ``optimal`` (design 5.1).

    Parameters
    ----------
    ctx : PlanState
        Context of the plan to optimize and cost.

    Returns
    -------
    dict of str to StrategyResult
        Both strategies costed by the engine.

    Notes
    -----
    cloud_only = :func:`best_capacity` with n = 0; optimal = :func:`best_capacity` over every n;
    both costed by :meth:`models.plan_state.PlanState.evaluate`.
    """
    cloud, _ = best_capacity(ctx, allow_servers=False)
    optimal, _ = best_capacity(ctx)
    return {"cloud_only": ctx.evaluate("cloud_only", cloud),
            "optimal": ctx.evaluate("optimal", optimal)}
