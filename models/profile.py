"""Usage profile: GPU-hours per period, turned into hourly demand over the plan (design 4.1).

A profile is a contiguous series of hour, day or month periods with steady and interruptible
GPU-hours. It is spread over its own hours, then laid hour by hour from the plan's first hour;
when it runs out its last 8,760 hours repeat, and growth scales hour t by (1+g)^(t/8760).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Optional

import numpy as np

from models.refusals import Refusal

Period = Literal["hour", "day", "month"]
HOURS_PER_YEAR = 8760
PERIOD_STEP = {"hour": np.timedelta64(1, "h"), "day": np.timedelta64(1, "D")}
# The most GPUs any period of a profile, or any hour of a plan, may need. It keeps every
# capacity level the optimizer counts (GPUs / relative throughput >= 0.01) far inside int64.
MAX_GPUS = 10_000_000


class ProfileError(Refusal):
    """A usage profile that cannot be planned on."""


@dataclass(frozen=True)
class UsageProfile:
    """Validated usage: one entry per period, contiguous, GPU-hours >= 0 and finite.

    starts        period start times [datetime64[h], UTC]
    steady        GPU-hours of work that cannot be interrupted, per period [GPU-hours]
    interruptible GPU-hours of checkpointed work, per period [GPU-hours]
    busy          optional: GPU-hours the GPUs were working, per period, at most steady +
                  interruptible; NaN where busy time was not measured [GPU-hours]
    """

    period: Period
    starts: np.ndarray
    steady: np.ndarray
    interruptible: np.ndarray
    has_workload: bool = False
    teams: dict[str, float] = field(default_factory=dict)
    busy: Optional[np.ndarray] = None

    def __post_init__(self) -> None:
        if self.period not in ("hour", "day", "month"):
            raise ProfileError(f"period must be hour, day or month, got {self.period!r}")
        starts = np.asarray(self.starts, dtype="datetime64[h]")
        steady = np.asarray(self.steady, dtype=float)
        interruptible = np.asarray(self.interruptible, dtype=float)
        object.__setattr__(self, "starts", starts)
        object.__setattr__(self, "steady", steady)
        object.__setattr__(self, "interruptible", interruptible)
        if len(starts) == 0:
            raise ProfileError("the usage profile has no periods")
        if not len(starts) == len(steady) == len(interruptible):
            raise ProfileError("starts, steady and interruptible must have the same length")
        for name, values in (("steady", steady), ("interruptible", interruptible)):
            bad = np.flatnonzero(~np.isfinite(values) | (values < 0))
            if bad.size:
                raise ProfileError(f"{name} GPU-hours must be finite and >= 0; "
                                   f"period {bad[0] + 1} has {values[bad[0]]}")
        expected = period_starts(starts[0], len(starts), self.period)
        gaps = np.flatnonzero(expected != starts)
        if gaps.size:
            raise ProfileError(f"periods must be contiguous {self.period}s; period {gaps[0] + 1} "
                               f"starts at {starts[gaps[0]]}, expected {expected[gaps[0]]}")
        hours = period_hours(starts, self.period)
        over = np.flatnonzero(steady + interruptible > hours * MAX_GPUS)
        if over.size:
            raise ProfileError(f"period {over[0] + 1} uses more than {MAX_GPUS:,} GPUs")
        if self.busy is not None:
            self._check_busy(steady + interruptible)

    def _check_busy(self, allocated: np.ndarray) -> None:
        busy = np.asarray(self.busy, dtype=float)
        object.__setattr__(self, "busy", busy)
        if len(busy) != len(allocated):
            raise ProfileError("busy must have one value per period")
        bad = np.flatnonzero(np.isinf(busy) | (busy < 0) | (busy > allocated * (1 + 1e-9)))
        if bad.size:
            raise ProfileError(f"busy GPU-hours must be >= 0 and at most the allocated "
                               f"GPU-hours; period {bad[0] + 1} has {busy[bad[0]]} busy of "
                               f"{allocated[bad[0]]}")

    @property
    def gpu_hours(self) -> float:
        """GPU-hours of the whole profile, steady and interruptible [GPU-hours].

        Notes
        -----
        E = sum_p steady_p + sum_p interruptible_p over the profile's periods p [GPU-hours].
        """
        return float(self.steady.sum() + self.interruptible.sum())

    def hours(self) -> np.ndarray:
        """Calendar hours of each period.

        Returns
        -------
        numpy.ndarray
            Hours [h, (periods,)].

        Notes
        -----
        hours_p = :func:`period_hours` of the profile's starts and period [h].
        """
        return period_hours(self.starts, self.period)


def period_starts(first: np.datetime64, count: int, period: Period) -> np.ndarray:
    """The start times of ``count`` contiguous periods.

    Parameters
    ----------
    first : numpy.datetime64
        Start of the first period [datetime64[h], UTC].
    count : int
        Number of periods.
    period : {'hour', 'day', 'month'}
        Length of each period.

    Returns
    -------
    numpy.ndarray
        Start times [datetime64[h], (count,)].

    Notes
    -----
    t_i = first + i x step, i = 0..count-1, step one hour or one day; for months t_i = the first
    hour of month(first) + i [datetime64[h]].
    """
    first = np.datetime64(first, "h")
    if period == "month":
        months = first.astype("datetime64[M]") + np.arange(count)
        return months.astype("datetime64[h]")
    return first + np.arange(count) * PERIOD_STEP[period].astype("timedelta64[h]")


def period_hours(starts: np.ndarray, period: Period) -> np.ndarray:
    """Calendar hours in each period (months: days x 24).

    Parameters
    ----------
    starts : numpy.ndarray
        Period start times [datetime64[h]].
    period : {'hour', 'day', 'month'}
        Length of the periods.

    Returns
    -------
    numpy.ndarray
        Hours [h, (periods,)].

    Notes
    -----
    hours_p = 1 for hourly periods, 24 for daily ones, 24 x (days in the month) for monthly
    ones [h].

    Examples
    --------
    >>> period_hours(np.array(["2028-02-01T00"], dtype="datetime64[h]"), "month")
    array([696.])
    """
    if period == "hour":
        return np.ones(len(starts))
    if period == "day":
        return np.full(len(starts), 24.0)
    months = starts.astype("datetime64[M]")
    return ((months + 1).astype("datetime64[h]") - months.astype("datetime64[h]")).astype(float)


def day_shape(peak_to_average: float) -> np.ndarray:
    """Hourly weights of one day, mean 1, busiest hour = peak_to_average.

    Parameters
    ----------
    peak_to_average : float
        Busiest hour over the day's mean, p; 1 or less is flat [-].

    Returns
    -------
    numpy.ndarray
        Weight of each hour 00:00..23:00 [-, (24,)].

    Notes
    -----
    Demand is concentrated in a window centred on 14:00: width w = min(12, 24/p) hours at level
    p, the rest at (24 - p w)/(24 - w). For p <= 2 the window is 08:00-20:00; above 2 the base
    falls to zero and the window narrows, its last hour taking the fractional remainder.
    """
    p = float(peak_to_average)
    if p <= 1:
        return np.ones(24)
    width = min(12.0, 24.0 / p)
    whole = int(np.floor(width + 1e-12))
    base = (24.0 - p * width) / (24.0 - width) if width < 24 else 0.0
    shape = np.full(24, max(base, 0.0))
    first = 14 - whole // 2
    shape[first:first + whole] = p
    if width - whole > 1e-12:
        shape[first + whole] = p * (width - whole)  # base is 0 here (p > 2)
    return shape * (24.0 / shape.sum())


def hourly_gpus(profile: UsageProfile, peak_to_average: float = 1.0
                ) -> tuple[np.ndarray, np.ndarray]:
    """Steady and interruptible GPUs busy in each hour of the profile's own calendar.

    Parameters
    ----------
    profile : UsageProfile
        Usage by period.
    peak_to_average : float, default 1.0
        Day shape of daily and monthly periods (:func:`day_shape`) [-].

    Returns
    -------
    steady : numpy.ndarray
        Steady GPUs busy in each hour [GPUs, (hours,)].
    interruptible : numpy.ndarray
        Interruptible GPUs busy in each hour [GPUs, (hours,)].

    Notes
    -----
    Hourly periods are taken as they are. Otherwise, for hour h of a period p of n_p hours,
    g_h = (E_p / n_p) x w_{h mod 24}, E_p the period's steady (or interruptible) GPU-hours
    [GPU-hours], w the day shape of :func:`day_shape` (mean 1, busiest hour =
    ``peak_to_average``) [-].
    """
    if profile.period == "hour":
        return profile.steady.copy(), profile.interruptible.copy()
    hours = profile.hours().astype(int)
    days = hours // 24
    shape = day_shape(peak_to_average)
    weights = np.tile(shape, int(days.sum()))  # mean 1 within each day
    per_hour_steady = np.repeat(profile.steady / hours, hours) * weights
    per_hour_interruptible = np.repeat(profile.interruptible / hours, hours) * weights
    return per_hour_steady, per_hour_interruptible


@dataclass(frozen=True)
class PlanCalendar:
    """Calendar months of a plan: labels 'YYYY-MM' and calendar hours of each month."""

    months: tuple[str, ...]
    hours: np.ndarray

    @property
    def total_hours(self) -> int:
        """Hours of the whole plan [h].

        Notes
        -----
        H = sum_m hours_m over the plan's months [h].
        """
        return int(self.hours.sum())

    def month_of_hour(self) -> np.ndarray:
        """Month index of each hour of the plan.

        Returns
        -------
        numpy.ndarray
            0-based month index [months, (total_hours,)].

        Notes
        -----
        month(h) = m for H_m <= h < H_m + hours_m, H_m = sum_{j<m} hours_j the plan's hours before
        month m [h].
        """
        return np.repeat(np.arange(len(self.months)), self.hours.astype(int))


def plan_calendar(start_month: str, horizon_months: int) -> PlanCalendar:
    """Calendar of a plan's months.

    Parameters
    ----------
    start_month : str
        The plan's first month, ``'YYYY-MM'``.
    horizon_months : int
        Months of the plan [months].

    Returns
    -------
    PlanCalendar
        Month labels and the calendar hours of each month [h].

    Notes
    -----
    hours_m = 24 x (days in month ``start_month`` + m), m = 0..horizon_months-1 [h].

    Examples
    --------
    >>> plan_calendar("2027-01", 2).hours
    array([744., 672.])
    """
    first = np.datetime64(start_month, "M")
    months = first + np.arange(horizon_months + 1)
    hours = np.diff(months.astype("datetime64[h]")).astype(float)
    return PlanCalendar(tuple(str(m) for m in months[:-1]), hours)


@dataclass(frozen=True)
class PlanDemand:
    """Hourly demand over the plan [GPUs busy, in GPUs of the measured type]."""

    steady: np.ndarray
    interruptible: np.ndarray
    profile_hours_used: int
    repeated_hours: int

    @property
    def total(self) -> np.ndarray:
        """Steady plus interruptible demand of each hour [GPUs].

        Notes
        -----
        d_h = steady_h + interruptible_h for each plan hour h [GPUs].
        """
        return self.steady + self.interruptible


def busy_factor(profile: UsageProfile, target_utilization: float) -> np.ndarray:
    """Share of each period's allocated GPU-hours needed for its busy work.

    Parameters
    ----------
    profile : UsageProfile
        The usage, with busy time.
    target_utilization : float
        Utilization the team aims for, u [fraction].

    Returns
    -------
    numpy.ndarray
        f for each period [fraction, (periods,)].

    Raises
    ------
    ProfileError
        The profile has no busy time, or none in any period.

    Notes
    -----
    f = min(1, B / (A u)) for allocated A, busy B and target utilization u; f = 1 where busy
    time was not measured (B is NaN) and where nothing was allocated. Demand never exceeds what
    was allocated: the work was done with it.
    """
    if profile.busy is None:
        raise ProfileError("demand basis 'busy' needs GPU busy time: upload a GPU busy-time "
                           "file (DCGM or nvidia-smi) with the usage file")
    if np.isnan(profile.busy).all():
        raise ProfileError("demand basis 'busy': no period of the usage has busy time")
    allocated = profile.steady + profile.interruptible
    needed = profile.busy / (np.where(allocated > 0, allocated, 1.0) * target_utilization)
    return np.where(np.isnan(profile.busy) | (allocated <= 0), 1.0, np.minimum(1.0, needed))


def demand_for(options, profile: UsageProfile, total_hours: int) -> PlanDemand:
    """The plan's demand as a scenario's ``profile`` section asks for it.

    Parameters
    ----------
    options : models.scenario_settings.ProfileOptions
        Growth, day shape, interruptible share, demand basis and target utilization.
    profile : UsageProfile
        Usage by period.
    total_hours : int
        Hours of the plan [h].

    Returns
    -------
    PlanDemand
        Hourly demand over the plan [GPUs]; see :func:`plan_demand`.

    Notes
    -----
    d = :func:`plan_demand` (profile, H; growth, peak-to-average, interruptible share, demand
    basis, target utilization of the ``profile`` section), H = ``total_hours`` [h].
    """
    return plan_demand(profile, total_hours, growth_annual=options.growth_annual,
                       peak_to_average=options.peak_to_average,
                       interruptible_share=options.interruptible_share,
                       demand_basis=options.demand_basis,
                       target_utilization=options.target_utilization)


def plan_demand(profile: UsageProfile, total_hours: int, *, growth_annual: float = 0.0,
                peak_to_average: float = 1.0,
                interruptible_share: Optional[float] = None,
                demand_basis: str = "allocated",
                target_utilization: float = 1.0) -> PlanDemand:
    """Lay the profile over the plan's hours (design 4.1).

    Parameters
    ----------
    profile : UsageProfile
        Usage to lay over the plan.
    total_hours : int
        Hours of the plan [h].
    growth_annual : float, default 0.0
        Demand growth g; hour t is scaled by (1+g)^(t/8760) [fraction per year].
    peak_to_average : float, default 1.0
        Day shape of daily and monthly periods [-].
    interruptible_share : float, optional
        Share of each hour's demand that is interruptible, overriding the profile's split
        [fraction]; None keeps it.
    demand_basis : {'allocated', 'busy'}, default 'allocated'
        On ``'busy'`` each period's GPU-hours are first scaled by :func:`busy_factor`.
    target_utilization : float, default 1.0
        Target utilization of the busy basis [fraction].

    Returns
    -------
    PlanDemand
        Steady and interruptible GPUs busy in each plan hour [GPUs, (total_hours,)], the profile
        hours used and the hours repeated [h]. When the profile runs out its last 8,760 hours
        repeat.

    Notes
    -----
    For plan hour t = 0..T-1, with g_h the hourly GPUs of :func:`hourly_gpus` (times
    :func:`busy_factor` when ``demand_basis`` is ``"busy"``), n the profile's hours and
    L = min(8760, n):

    d_t = g_{i(t)} x (1 + growth)^(t / 8760), i(t) = t for t < n, else n - L + (t - n) mod L

    [GPUs]; with an interruptible share s, interruptible_t = s (steady_t + interruptible_t) and
    steady_t the rest.
    """
    steady, interruptible = hourly_gpus(profile, peak_to_average)
    if demand_basis == "busy":
        factor = busy_factor(profile, target_utilization)
        if profile.period != "hour":
            factor = np.repeat(factor, profile.hours().astype(int))
        steady, interruptible = steady * factor, interruptible * factor
    if interruptible_share is not None:
        total = steady + interruptible
        interruptible = total * interruptible_share
        steady = total - interruptible
    n = len(steady)
    if n >= total_hours:
        index = np.arange(total_hours)
    else:
        loop = min(HOURS_PER_YEAR, n)
        extra = np.arange(total_hours - n)
        index = np.concatenate([np.arange(n), n - loop + extra % loop])
    growth = (1.0 + growth_annual) ** (np.arange(total_hours) / HOURS_PER_YEAR)
    return PlanDemand(steady[index] * growth, interruptible[index] * growth,
                      profile_hours_used=min(n, total_hours),
                      repeated_hours=max(0, total_hours - n))


def check_peak(demand: PlanDemand, growth_annual: float) -> None:
    """Refuse a plan whose demand needs more than ``MAX_GPUS`` in some hour.

    Parameters
    ----------
    demand : PlanDemand
        The plan's hourly demand [GPUs].
    growth_annual : float
        The growth that laid it, named in the message [fraction per year].

    Raises
    ------
    ProfileError
        Naming the first hour over the bound, its year of the plan and the GPUs it needs.

    Notes
    -----
    Refused when max_h d_h > ``MAX_GPUS``, d_h = steady_h + interruptible_h the plan's demand in
    hour h [GPUs].
    The usage file's periods are held to the same bound; growth (up to 1,000 % a year for up to
    20 years) and the day shape can still carry the plan's demand past it, and the optimizer
    counts committed capacity in whole GPUs: unbounded, a count passes int64.
    """
    total = demand.total
    over = np.flatnonzero(total > MAX_GPUS)
    if not over.size:
        return
    hour = int(over[0])
    raise ProfileError(f"profile.growth_annual: demand growing {growth_annual:.0%} a year needs "
                       f"{total[hour]:,.0f} GPUs in hour {hour + 1:,} (year "
                       f"{hour // HOURS_PER_YEAR + 1} of the plan); a plan holds at most "
                       f"{MAX_GPUS:,} GPUs in any hour: lower the growth, the horizon or the "
                       "peak-to-average ratio")
