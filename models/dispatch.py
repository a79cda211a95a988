"""Dispatch: which source serves each hour's demand, summed by month (design 4.3).

Steady demand is served by committed, then owned capacity; interruptible demand takes what is
left; leftover steady demand runs on demand; leftover interruptible demand goes to spot up to the
spot availability share and the rest on demand. Because committed and owned capacity are constant
within a month, every monthly volume is a sum of min(demand, capacity) terms: each month's hourly
demand is sorted once, and any capacity level costs one binary search and a prefix-sum look-up.
All volumes here are in demand units: GPU-hours of the GPU the usage was measured on.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from models.profile import PlanCalendar, PlanDemand


def rows_searchsorted(rows: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Insertion points of levels in rows of ascending values, row by row.

    Parameters
    ----------
    rows : numpy.ndarray
        Each month's values, ascending along each row [GPUs, (months, width)].
    levels : numpy.ndarray
        Levels to place in each row [GPUs, (months, k)].

    Returns
    -------
    numpy.ndarray
        For each row m, where each of ``levels[m]`` would go in it (side left)
        [index, (months, k)].

    Notes
    -----
    i[m, j] = #{h : rows[m, h] < levels[m, j]}, the left insertion point [index].
    One search per month: a row of a month's hours stays in the CPU cache, where one search
    over all rows laid end to end (shifted apart) ran 1.5x slower on the optimizer's grids.
    """
    levels = np.asarray(levels, float)
    out = np.empty(levels.shape, np.int64)
    for m, row in enumerate(rows):
        out[m] = np.searchsorted(row, levels[m])
    return out


class MonthlySorted:
    """Each month's hourly values sorted ascending, with prefix sums, for sum(min(v, x))."""

    def __init__(self, hourly: np.ndarray, calendar: PlanCalendar):
        hours = calendar.hours.astype(int)
        width = int(hours.max())
        table = np.zeros((len(hours), width))
        bounds = np.concatenate([[0], np.cumsum(hours)])
        for m, n in enumerate(hours):
            # zeros pad at the front of short months: min(0, x) adds nothing for x >= 0
            table[m, width - n:] = hourly[bounds[m]:bounds[m + 1]]
        table.sort(axis=1)
        self.sorted = table
        self.prefix = np.concatenate([np.zeros((len(hours), 1)), np.cumsum(table, axis=1)],
                                     axis=1)
        self.width = width
        self.totals = self.prefix[:, -1]
        self.peak = table[:, -1]

    def scaled(self, factor: float) -> "MonthlySorted":
        """The same months with every value multiplied by a factor >= 0 (order unchanged).

        Parameters
        ----------
        factor : float
            Multiplier of every value [-].

        Returns
        -------
        MonthlySorted
            Sorted values and prefix sums times ``factor``, without sorting again.

        Notes
        -----
        sorted' = a x sorted, prefix' = a x prefix, a = ``factor`` >= 0 [-]; order is kept since a
        >= 0.
        """
        new = object.__new__(MonthlySorted)
        new.sorted, new.prefix, new.width = self.sorted * factor, self.prefix * factor, self.width
        new.totals, new.peak = new.prefix[:, -1], new.sorted[:, -1]
        return new

    def sum_min(self, level: np.ndarray) -> np.ndarray:
        """Sum over each month's hours of min(value, level[m]).

        Parameters
        ----------
        level : numpy.ndarray
            Capacity level of each month [GPUs, (months,)], or k candidate levels at once
            [GPUs, (months, k)]; negative levels count as 0.

        Returns
        -------
        numpy.ndarray
            Demand served within the level [GPU-hours, same shape as ``level``].

        Notes
        -----
        A_m(x) = P_m[i] + x (n_m - i)

        with x = max(level[m], 0) [GPUs], v_m the month's hourly values sorted ascending, i the
        number of them below x, P_m[i] the sum of the i smallest [GPU-hours], n_m the month's hours
        (the table's width) [h]: the sum over the month's hours of min(v, x).
        """
        level = np.maximum(np.asarray(level, dtype=float), 0.0)
        if level.ndim == 1:  # one level a month: count in one vectorised comparison
            idx = (self.sorted < level[:, None]).sum(axis=1)
            return self.prefix[np.arange(len(level)), idx] + level * (self.width - idx)
        idx = rows_searchsorted(self.sorted, level)
        months = np.arange(self.sorted.shape[0])[:, None]
        return self.prefix[months, idx] + level * (self.width - idx)


@dataclass(frozen=True)
class DemandTables:
    """Sorted monthly tables of a plan's demand, built once per scenario and profile.

    ``gross`` counts interruptible work with its failure overhead (design 4.4): it is what
    owned, committed and on-demand capacity must carry.
    """

    gross: MonthlySorted
    steady: MonthlySorted
    useful_by_month: np.ndarray        # steady + interruptible, useful [GPU-hours]
    interruptible_by_month: np.ndarray  # useful [GPU-hours]
    peak_gross_gpus: float

    @classmethod
    def build(cls, demand: PlanDemand, calendar: PlanCalendar, failure_waste: float
              ) -> "DemandTables":
        """Sort a plan's demand by month, once per scenario and profile.

        Parameters
        ----------
        demand : PlanDemand
            Hourly steady and interruptible demand of the plan [GPUs].
        calendar : PlanCalendar
            The plan's months.
        failure_waste : float
            Share of billed time interruptible work loses to hardware failures [fraction].

        Returns
        -------
        DemandTables
            Sorted tables of gross and steady demand, useful and interruptible GPU-hours by month
            [GPU-hours] and the peak gross demand [GPUs].

        Notes
        -----
        gross_h = steady_h + interruptible_h / (1 - w_f), w_f the failure waste [fraction]; the
        tables sort gross_h and steady_h within each month; useful_m = sum_{h in m} (steady_h +
        interruptible_h) and interruptible_m = sum_{h in m} interruptible_h [GPU-hours]; peak =
        max_h gross_h [GPUs].
        """
        gross_hourly = demand.steady + demand.interruptible / (1.0 - failure_waste)
        month = calendar.month_of_hour()
        months = len(calendar.hours)
        return cls(MonthlySorted(gross_hourly, calendar), MonthlySorted(demand.steady, calendar),
                   np.bincount(month, demand.total, minlength=months),
                   np.bincount(month, demand.interruptible, minlength=months),
                   float(gross_hourly.max()) if gross_hourly.size else 0.0)

    def scaled(self, factor: float) -> "DemandTables":
        """The tables of the same demand multiplied by a factor >= 0 in every hour.

        Parameters
        ----------
        factor : float
            Multiplier of every hour's demand [-].

        Returns
        -------
        DemandTables
            Every table and total times ``factor`` (sorting is unchanged by a positive factor).

        Notes
        -----
        T'(x) = a T(x) for every table, total and the peak, a = ``factor`` >= 0 [-].
        """
        return DemandTables(self.gross.scaled(factor), self.steady.scaled(factor),
                            self.useful_by_month * factor, self.interruptible_by_month * factor,
                            self.peak_gross_gpus * factor)


@dataclass(frozen=True)
class Volumes:
    """GPU-hours by source and month, in demand units (arrays of shape (months,) or (months, k)).

    Interruptible volumes on owned, committed and on-demand capacity are gross (with failure
    overhead); spot volumes are billed (with spot overhead). ``gross`` is the month's whole
    gross demand, the denominator of the data-location share (models/costs.py).
    """

    committed: np.ndarray
    owned: np.ndarray
    spot: np.ndarray
    on_demand: np.ndarray
    overhead: np.ndarray
    spot_useful: np.ndarray
    gross: np.ndarray
    owned_by_type: Optional[dict] = None   # a fleet's owned volume per type id (issue 26)


def allocate(gross_c: np.ndarray, gross_all: np.ndarray, steady_c: np.ndarray,
             steady_all: np.ndarray, d_total: np.ndarray, s_total: np.ndarray, *,
             failure_waste, spot_waste, spot_share) -> Volumes:
    """Monthly volumes by source from the sum-mins of committed and committed-plus-owned capacity.

    Parameters
    ----------
    gross_c : numpy.ndarray
        A(C): gross demand served within committed capacity [GPU-hours].
    gross_all : numpy.ndarray
        A(C+K): gross demand served within committed plus owned capacity [GPU-hours].
    steady_c : numpy.ndarray
        B(C): steady demand within committed capacity [GPU-hours].
    steady_all : numpy.ndarray
        B(C+K): steady demand within committed plus owned capacity [GPU-hours].
    d_total : numpy.ndarray
        D: the month's gross demand [GPU-hours].
    s_total : numpy.ndarray
        S: the month's steady demand [GPU-hours].
    failure_waste : float or numpy.ndarray
        Share of billed time interruptible work loses to failures, per draw along the last axis
        [fraction].
    spot_waste : float or numpy.ndarray
        Share of billed spot time wasted by interruptions and failures; >= 1 sends everything on
        demand [fraction].
    spot_share : float
        Share of leftover interruptible work that spot can take [fraction].

    Returns
    -------
    Volumes
        GPU-hours by source, in demand units [GPU-hours, shape of the inputs].

    Notes
    -----
    With A(x) = sum min(gross demand, x) and B(x) = sum min(steady demand, x), D and S their
    totals: committed = A(C); owned = A(C+K) - A(C); leftover steady = S - B(C+K); leftover
    interruptible (gross) = (D - A(C+K)) - leftover steady; spot takes ``spot_share`` of its
    useful part, billed at 1/(1 - w_spot); the rest runs on demand (design 4.3, 4.4).
    """
    fw = np.asarray(failure_waste, float)
    sw = np.asarray(spot_waste, float)
    feasible = sw < 1
    share = np.where(feasible, spot_share, 0.0)
    left_steady = s_total - steady_all
    left_int_gross = np.maximum((d_total - gross_all) - left_steady, 0.0)
    spot_useful = share * left_int_gross * (1.0 - fw)
    spot_billed = spot_useful / np.where(feasible, 1.0 - sw, 1.0)
    on_demand_int_gross = (1.0 - share) * left_int_gross
    owned = gross_all - gross_c
    int_on_committed = np.maximum(gross_c - steady_c, 0.0)
    int_on_owned = np.maximum(owned - (steady_all - steady_c), 0.0)
    overhead = ((int_on_committed + int_on_owned + on_demand_int_gross) * fw
                + (spot_billed - spot_useful))
    return Volumes(gross_c, owned, spot_billed, left_steady + on_demand_int_gross, overhead,
                   spot_useful, np.broadcast_to(d_total, owned.shape))


def dispatch(tables: DemandTables, committed_cap: np.ndarray, owned_cap: np.ndarray, *,
             failure_waste: float, spot_waste: float, spot_share: float) -> Volumes:
    """Monthly volumes by source for committed and owned capacity levels.

    Parameters
    ----------
    tables : DemandTables
        The plan's sorted demand.
    committed_cap : numpy.ndarray
        Committed capacity of each month [GPUs of demand units, (months,) or (months, k)].
    owned_cap : numpy.ndarray
        Owned capacity of each month [GPUs of demand units, shape of ``committed_cap``].
    failure_waste : float
        Share of billed time interruptible work loses to failures [fraction].
    spot_waste : float
        Share of billed spot time wasted [fraction].
    spot_share : float
        Share of leftover interruptible work spot can take [fraction].

    Returns
    -------
    Volumes
        GPU-hours by source and month, for k candidates at once when the levels have a second
        axis [GPU-hours]; see :func:`allocate`.

    Notes
    -----
    With C the committed level and K the owned level [GPUs, (months,) or (months, k)]: volumes =
    :func:`allocate` (A(C), A(C + K), B(C), B(C + K), D, S), where A(x) and B(x) are
    :meth:`MonthlySorted.sum_min` of the gross and steady tables and D, S their monthly totals
    [GPU-hours].
    """
    cap = committed_cap + owned_cap
    d_total = tables.gross.totals.reshape(-1, *([1] * (np.ndim(cap) - 1)))
    s_total = tables.steady.totals.reshape(d_total.shape)
    return allocate(tables.gross.sum_min(committed_cap), tables.gross.sum_min(cap),
                    tables.steady.sum_min(committed_cap), tables.steady.sum_min(cap),
                    d_total, s_total, failure_waste=failure_waste, spot_waste=spot_waste,
                    spot_share=spot_share)
