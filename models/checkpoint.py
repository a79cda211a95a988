"""Checkpoint/restart overhead of interruptible gang jobs (design 4.4).

Spot reclaims and hardware failures both stop a gang job; what it costs is the checkpoint writes,
the work lost since the last checkpoint, and the restart time, as a fraction of billed time.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

SECONDS_PER_HOUR = 3600.0
NEGLIGIBLE = 1e-200   # interruptions per second below which waste is nil
HOURS_PER_YEAR = 8760.0


def daly_interval(checkpoint_seconds: float, mtbi_seconds: float) -> float:
    """Optimal checkpoint interval tau (Daly 2006).

    Parameters
    ----------
    checkpoint_seconds : float
        Time to write a checkpoint, delta [s].
    mtbi_seconds : float
        Mean time between interruptions, M [s]; inf for none.

    Returns
    -------
    float
        tau [s]; inf when nothing interrupts.

    Notes
    -----
    tau = sqrt(2 delta M) [1 + (1/3) sqrt(delta / 2M) + (1/9) (delta / 2M)] - delta  for delta < 2M,
    else tau = M. Young's sqrt(2 delta M) is the first term.

    References
    ----------
    J. T. Daly, "A higher order estimate of the optimum checkpoint interval for restart dumps",
    Future Generation Computer Systems 22 (2006) 303-312.
    """
    delta, m = checkpoint_seconds, mtbi_seconds
    if not math.isfinite(m):
        return math.inf
    if delta >= 2 * m:
        return m
    x = delta / (2 * m)
    return math.sqrt(2 * delta * m) * (1 + math.sqrt(x) / 3 + x / 9) - delta


@dataclass(frozen=True)
class Waste:
    """Overhead of a checkpointed gang job on one kind of capacity."""

    fraction: float          # w: wasted share of billed time [-]
    mtbi_hours: float        # M: gang mean time between interruptions [h]
    interval_seconds: float  # tau [s]
    lost_seconds: float      # L: work lost per interruption, mean over both kinds [s]

    @property
    def feasible(self) -> bool:
        """Whether any useful work is left: w < 1.

        Notes
        -----
        feasible = (w < 1), w = ``fraction`` the wasted share of billed GPU-hours [fraction].
        """
        return self.fraction < 1

    @property
    def billed_per_useful(self) -> float:
        """Billed GPU-hours per useful GPU-hour, 1/(1-w) [-]; inf when infeasible.

        Notes
        -----
        billed / useful = 1 / (1 - w), w = ``fraction`` the wasted share of billed GPU-hours
        [fraction]; inf when w >= 1.
        """
        return 1.0 / (1.0 - self.fraction) if self.feasible else math.inf


def waste_fraction(*, nodes: int, noticed_rate_per_node_hour: float,
                   unnoticed_rate_per_node_hour: float, notice_seconds: float,
                   checkpoint_seconds: float, restart_seconds: float) -> Waste:
    """Wasted fraction w of billed time for a checkpointed gang of ``nodes`` nodes.

    Parameters
    ----------
    nodes : int
        Nodes of the gang job, n [nodes].
    noticed_rate_per_node_hour : float
        Interruptions that come with notice, lambda_n (spot reclaims) [1 / node-hour].
    unnoticed_rate_per_node_hour : float
        Interruptions without notice, lambda_u (hardware failures) [1 / node-hour].
    notice_seconds : float
        Notice given before a reclaim [s].
    checkpoint_seconds : float
        Time to write a checkpoint, delta [s].
    restart_seconds : float
        Time to restart the job, R [s].

    Returns
    -------
    Waste
        The wasted share w [fraction of billed time], the gang's mean time between interruptions
        [h], the periodic checkpoint interval [s] and the work lost per interruption [s].

    Notes
    -----
    An interruption with notice >= delta is *noticed*: the job writes a final checkpoint and
    restarts, losing no work, so it costs delta + R. Any other interruption (a hardware failure,
    or a reclaim whose notice is shorter than a checkpoint write) loses on average half a
    checkpoint interval, tau/2, plus the restart R. Periodic checkpoints guard only against the
    unnoticed kind, so tau comes from their gang MTBI M_u = 1 / (n lambda_u) through Daly:

        w = delta / tau + (tau/2 + R) / M_u + (delta + R) / M_n,   M_n = 1 / (n lambda_n).

    With no unnoticed interruptions there are no periodic checkpoints (tau = inf).
    """
    noticed, unnoticed = noticed_rate_per_node_hour, unnoticed_rate_per_node_hour
    if notice_seconds < checkpoint_seconds:  # too short for a final checkpoint
        noticed, unnoticed = 0.0, noticed + unnoticed
    rate_n = nodes * noticed / SECONDS_PER_HOUR      # per second
    rate_u = nodes * unnoticed / SECONDS_PER_HOUR
    # a rate this small wastes less than 1e-90 of the time: none (and 1/rate would overflow)
    rate_n, rate_u = (float(r) if r > NEGLIGIBLE else 0.0 for r in (rate_n, rate_u))
    if rate_n + rate_u <= 0:
        return Waste(0.0, math.inf, math.inf, 0.0)
    delta, restart = checkpoint_seconds, restart_seconds
    if rate_u > 0:
        tau = daly_interval(delta, 1.0 / rate_u)
        w = delta / tau + (tau / 2 + restart) * rate_u
    else:
        tau, w = math.inf, 0.0
    w += (delta + restart) * rate_n
    lost = (rate_u * tau / 2) / (rate_n + rate_u) if rate_u > 0 else 0.0
    return Waste(w, 1.0 / (rate_n + rate_u) / SECONDS_PER_HOUR, tau, lost)


def spot_rate_from_monthly_bucket(fraction_per_month: float) -> float:
    """Interruption rate per instance-hour from a Spot Advisor monthly frequency.

    Parameters
    ----------
    fraction_per_month : float
        Share of instances interrupted in a month, f [fraction per month].

    Returns
    -------
    float
        lambda = -ln(1 - f) / 730 [1 / instance-hour].

    Notes
    -----
    lambda = -ln(1 - f) / 730

    f the share of instances interrupted in a month [fraction], 730 the hours of an average month
    [h]: the Poisson rate with P(no interruption in 730 h) = 1 - f.
    """
    return -math.log(1 - fraction_per_month) / 730.0
