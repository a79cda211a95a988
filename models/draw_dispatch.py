"""Dispatch over many draws: demand growth, failure strata and sum-min look-ups (issue 7).

Capacities stay fixed; what moves the dispatch in a draw is demand growth, owned availability,
the failure rate (through the gross demand table, design 4.4) and the spot interruption rate
(through the spot waste). Growth is a change of capacity level: sum over hours of
min(f d, x) = f sum min(d, x / f), with f the draw's growth relative to the base at the middle
hour of each month, so each month's sorted demand table is reused. Failure rates are drawn from a
few strata, each with its own gross table. The index and arithmetic of every look-up are those
of models/dispatch.py MonthlySorted.sum_min.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from models.capacity import CapacityPlan
from models.checkpoint import HOURS_PER_YEAR, waste_fraction
from models.dispatch import MonthlySorted, Volumes, allocate
from models.fleet_draws import FleetDraws, fleet_levels, work_by_type
from models.plan_state import PlanState
from models.profile import PlanDemand


def growth_factors(ctx: PlanState, growth: np.ndarray) -> np.ndarray:
    """Demand multiplier of each month and draw relative to the base growth.

    Parameters
    ----------
    ctx : PlanState
        The plan's context (its calendar and base growth).
    growth : numpy.ndarray
        Demand growth of each draw [fraction per year, (n,)].

    Returns
    -------
    numpy.ndarray
        ((1 + g) / (1 + g_base))^t at the middle hour t of each month [-, (months, n)].

    Notes
    -----
    g_{m,i} = ((1 + g_i) / (1 + g_0))^(t_m / 8760), t_m = (start_m + (hours_m - 1) / 2) the middle
    hour of month m [h], g_i the draw's growth and g_0 the scenario's [fraction per year].
    """
    cal, base = ctx.calendar, ctx.scenario.profile.growth_annual
    starts = np.concatenate([[0.0], np.cumsum(cal.hours)[:-1]])
    middle = (starts + (cal.hours - 1) / 2) / HOURS_PER_YEAR
    return np.exp(np.outer(middle, np.log((1.0 + growth) / (1.0 + base))))


def grown_demand(ctx: PlanState, growth: float) -> PlanDemand:
    """The plan's demand with the growth of one draw, month by month as the draws see it.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (its demand and base growth).
    growth : float
        Demand growth [fraction per year].

    Returns
    -------
    PlanDemand
        Hourly demand [GPUs].

    Notes
    -----
    d'_h = d_h x g_{m(h)}, g of :func:`growth_factors` for the draw's growth, m(h) the month of
    hour h [GPUs].
    """
    f = growth_factors(ctx, np.array([growth]))[:, 0][ctx.calendar.month_of_hour()]
    d = ctx.demand
    return PlanDemand(d.steady * f, d.interruptible * f, d.profile_hours_used, d.repeated_hours)


@dataclass
class DrawDemand:
    """What dispatch needs per draw: wastes, growth and the gross tables by failure stratum."""

    growth: np.ndarray            # (months, n)
    failure_waste: np.ndarray     # (n,)
    spot_waste: np.ndarray        # (n,)
    stratum: np.ndarray           # (n,) index into gross
    gross: list[MonthlySorted]
    steady: MonthlySorted
    merged: list["MergedTable"]


def draw_demand(ctx: PlanState, v: dict[str, np.ndarray]) -> DrawDemand:
    """What dispatch needs in each draw: wastes, growth and the gross tables by failure stratum.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (demand, calendar, spot job shape).
    v : dict of str to numpy.ndarray
        Assumption values of each draw; ``failure_rate`` [failures per server-year],
        ``spot_interruptions`` [1 / instance-hour] and ``demand_growth`` [fraction per year]
        are read [(n,)].

    Returns
    -------
    DrawDemand
        Growth factors [-, (months, n)], failure and spot waste [fraction, (n,)], each draw's
        failure stratum and the sorted tables of each stratum.

    Notes
    -----
    For each distinct failure rate f: w_f = :func:`models.checkpoint.waste_fraction` (unnoticed rate
    f / 8760); for each (f, spot interruptions) pair: w_s the same with the noticed rate; gross_h =
    steady_h + interruptible_h / (1 - w_f) sorted by month per stratum; w_f = 0 without
    interruptible work; growth of :func:`growth_factors`.
    """
    s, d = ctx.scenario, ctx.demand
    sp = s.spot
    has_int = d.interruptible.sum() > 0
    common = dict(nodes=sp.nodes_per_job, notice_seconds=sp.notice_seconds,
                  checkpoint_seconds=sp.checkpoint_seconds, restart_seconds=sp.restart_seconds)
    rates, stratum = np.unique(v["failure_rate"], return_inverse=True)
    fw_by = np.array([waste_fraction(noticed_rate_per_node_hour=0.0,
                                     unnoticed_rate_per_node_hour=r / HOURS_PER_YEAR,
                                     **common).fraction for r in rates])
    fw_by = fw_by if has_int else np.zeros_like(fw_by)
    pairs, pair_index = np.unique(np.stack([v["failure_rate"], v["spot_interruptions"]]),
                                  axis=1, return_inverse=True)
    sw_by = np.array([waste_fraction(noticed_rate_per_node_hour=b,
                                     unnoticed_rate_per_node_hour=a / HOURS_PER_YEAR,
                                     **common).fraction for a, b in pairs.T])
    if has_int:
        gross = [MonthlySorted(d.steady + d.interruptible / (1.0 - w), ctx.calendar)
                 for w in fw_by]
        merged = [MergedTable(t, ctx.tables.steady) for t in gross]
    else:  # no interruptible work: failures change nothing, one table serves every draw
        gross = [ctx.tables.gross] * len(rates)
        merged = [MergedTable(ctx.tables.gross, ctx.tables.steady)]
        stratum = np.zeros_like(stratum)
    return DrawDemand(growth_factors(ctx, v["demand_growth"]), fw_by[stratum.ravel()],
                      sw_by[pair_index.ravel()], stratum.ravel(), gross, ctx.tables.steady,
                      merged)


class MergedTable:
    """A month's gross and steady demand merged into one sorted row, with prefix sums of each.

    One binary search then gives both sum-mins of a level: the number of gross values below
    it is the count of gross entries before its position in the merged row (models/dispatch.py
    MonthlySorted.sum_min, same index, same arithmetic).
    """

    def __init__(self, gross: MonthlySorted, steady: MonthlySorted):
        months, width = gross.sorted.shape
        both = np.concatenate([gross.sorted, steady.sorted], axis=1)
        order = np.argsort(both, axis=1, kind="stable")   # on ties gross (first) comes first
        self.merged = np.sort(both, axis=1)     # the same values: ties are equal
        # int32 counts (a row holds at most 2 x 744): half the memory traffic of int64
        self.gross_before = np.zeros((months, 2 * width + 1), np.int32)
        np.cumsum(order < width, axis=1, dtype=np.int32, out=self.gross_before[:, 1:])
        self.gross, self.steady, self.width = gross, steady, gross.width

    def sum_mins(self, level: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Both sum-mins of levels, month by month.

        Parameters
        ----------
        level : numpy.ndarray
            Capacity levels of each month [GPUs of demand units, (months, k)].

        Returns
        -------
        gross : numpy.ndarray
            sum min(gross demand, level) [GPU-hours, (months, k)].
        steady : numpy.ndarray
            sum min(steady demand, level) [GPU-hours, (months, k)].

        Notes
        -----
        A_m(x) = P^g_m[i_a] + x (n_m - i_a) and B_m(x) = P^s_m[i_b] + x (n_m - i_b), x = max(level,
        0) [GPUs], i_a and i_b the gross and steady hours below x, P the prefix sums of the sorted
        hours [GPU-hours], n_m the month's hours [h].
        """
        level = np.maximum(level, 0.0)
        a, b = np.empty(level.shape), np.empty(level.shape)
        for m, x in enumerate(level):
            # month by month, levels sorted first: the searches then walk one short row in
            # order (numpy reuses the last index found), 2-3x faster than searching the
            # draws in random order (bench/uncertainty.py)
            order = np.argsort(x)
            pos = np.empty(len(x), np.int64)
            pos[order] = np.searchsorted(self.merged[m], x[order])
            ia = self.gross_before[m][pos]
            ib = pos - ia
            a[m] = self.gross.prefix[m][ia] + x * (self.width - ia)
            b[m] = self.steady.prefix[m][ib] + x * (self.width - ib)
        return a, b


def fleet_level_sums(ctx: PlanState, dd: DrawDemand, plans: dict[str, CapacityPlan],
                     fd: FleetDraws) -> dict[str, tuple[np.ndarray, ...]]:
    """The sum-mins of every strategy's capacity levels in every draw, with each server
    type's work (issue 26; every plan is a fleet, issue 36).

    Parameters
    ----------
    ctx : PlanState
        Context of the plan.
    dd : DrawDemand
        Demand of the draws.
    plans : dict of str to CapacityPlan
        Cohorts of each strategy, by name.
    fd : FleetDraws
        Each type's capacity per server and the merit order of the same draws.

    Returns
    -------
    dict of str to tuple of numpy.ndarray
        Per plan: sum min(gross, committed), sum min(gross, committed + owned), and the same
        of steady demand [GPU-hours, (months, n) each], then each type's work [GPU-hours of
        the reference type, (types, months, n)].

    Notes
    -----
    sums = (A(L_0), A(L_K), B(L_0), B(L_K), W), with L_0 the committed level and L_K the level after
    the last type of :func:`models.fleet_draws.fleet_levels`, A and B the gross and steady
    sum-mins by failure stratum, W each type's work of :func:`models.fleet_draws.work_by_type`
    [GPU-hours].
    """
    out = {}
    for name, plan in plans.items():
        levels = fleet_levels(ctx, plan, fd)
        a, b = sum_mins_by_stratum(dd, levels)
        out[name] = (a[:, 0], a[:, -1], b[:, 0], b[:, -1], work_by_type(a, fd))
    return out


def draw_volumes(ctx: PlanState, dd: DrawDemand, plans: dict[str, CapacityPlan],
                 sums: dict[str, tuple[np.ndarray, ...]]) -> dict[str, Volumes]:
    """Monthly volumes of sets of cohorts in every draw.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (spot availability).
    dd : DrawDemand
        Demand of the same draws (totals, wastes).
    plans : dict of str to CapacityPlan
        Cohorts by name (only ``use_spot`` is read).
    sums : dict of str to tuple of numpy.ndarray
        :func:`level_sums` (or :func:`fleet_level_sums`) of the same draws [GPU-hours].

    Returns
    -------
    dict of str to Volumes
        GPU-hours by source [GPU-hours of demand units, (months, n)], by models/dispatch.py's
        allocation.

    Notes
    -----
    :func:`models.dispatch.allocate` of each plan's sum-mins with D = g_m x D_m(stratum) and S =
    g_m x S_m, g the draw's growth factor [-], D and S the month's gross and steady totals
    [GPU-hours].
    """
    g = dd.growth
    d_total = g * np.stack([t.totals for t in dd.gross], axis=1)[:, dd.stratum]
    s_total = g * dd.steady.totals[:, None]
    out = {}
    for name, plan in plans.items():
        spot_share = ctx.scenario.spot.availability if plan.use_spot else 0.0
        out[name] = allocate(*sums[name][:4], d_total, s_total,
                             failure_waste=dd.failure_waste, spot_waste=dd.spot_waste,
                             spot_share=spot_share)
        if len(sums[name]) > 4:     # a fleet: each type's work
            out[name] = replace(out[name], owned_by_type={
                k.id: sums[name][4][i] for i, k in enumerate(ctx.fleet)})
    return out


def draw_slice(dd: DrawDemand, part: slice) -> DrawDemand:
    """Some draws of a DrawDemand (the tables are shared).

    Parameters
    ----------
    dd : DrawDemand
        Demand of all the draws.
    part : slice
        The draws to keep.

    Returns
    -------
    DrawDemand
        The draws ``part``.
    """
    return DrawDemand(dd.growth[:, part], dd.failure_waste[part], dd.spot_waste[part],
                      dd.stratum[part], dd.gross, dd.steady, dd.merged)


def sum_mins_by_stratum(dd: DrawDemand, levels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """sum min(gross, x) and sum min(steady, x), each draw with its growth and failure stratum.

    Parameters
    ----------
    dd : DrawDemand
        Demand of the draws (growth, stratum, merged tables), in stratum order.
    levels : numpy.ndarray
        Capacity levels [GPUs of demand units, (months, k, n)].

    Returns
    -------
    gross : numpy.ndarray
        sum min(gross demand, level) [GPU-hours, (months, k, n)].
    steady : numpy.ndarray
        sum min(steady demand, level) [GPU-hours, (months, k, n)].

    Notes
    -----
    sum min(f d, x) = f sum min(d, x / f): growth f is a change of level; the gross table
    depends on the failure stratum of the draw. The draws come in stratum order, so that
    each merged table answers one contiguous block of them.
    """
    months, keys, n = levels.shape
    if (np.diff(dd.stratum) < 0).any():
        raise ValueError("draws must come in failure-stratum order (models/draws.py draw_pvs)")
    bounds = np.searchsorted(dd.stratum, np.arange(len(dd.merged) + 1))
    a, b = np.empty(levels.shape), np.empty(levels.shape)
    for table, lo, hi in zip(dd.merged, bounds[:-1], bounds[1:]):
        if hi > lo:
            f = dd.growth[:, None, lo:hi]
            sa, sb = table.sum_mins((levels[:, :, lo:hi] / f).reshape(months, -1))
            a[:, :, lo:hi] = f * sa.reshape(months, keys, hi - lo)
            b[:, :, lo:hi] = f * sb.reshape(months, keys, hi - lo)
    return a, b
