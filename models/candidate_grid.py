"""The (servers, committed GPUs) candidates of the static optimum (design 5.3), costed at once
from the sorted monthly demand tables: the exact grid when it is small, a committed level at a
time, or coarse to fine (marked approximate) when it is large; cached per plan context.

Separate from the coefficients (models.linear_costs) and from choosing the best candidate
(models.optimize): this module holds the grid and its search.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from models.dispatch import dispatch
from models.linear_costs import LinearCosts, grid_bounds, optimizer_state
from models.splits import CommitmentSplits
from models.plan_state import PlanState


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
        if key not in ctx.cache.optimizer:
            ctx.cache.optimizer[key] = search(ctx, lc, splits, use_spot, (0, n_max), levels)
        grid = ctx.cache.optimizer[key]
        keep = (grid.servers >= lo) & (grid.servers <= hi)
        return Candidates(*(getattr(grid, f)[keep] for f in (
            "servers", "committed_total", "split_index", "lower_pv", "upper_pv", "outlay")),
            use_spot)
    key = ("candidates", use_spot, lo, hi)
    if key not in ctx.cache.optimizer:
        ctx.cache.optimizer[key] = search(ctx, lc, splits, use_spot, (lo, hi), levels)
    return ctx.cache.optimizer[key]
