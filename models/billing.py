"""Billing of cloud sessions: time billed per time used, under a billing increment and minimum,
without interruptions (on demand) and with them (spot).

Split from models/prices.py (issue 36, item 3); the price book divides cloud prices by these
factors once per plan.
"""
from __future__ import annotations

import math

from models.checkpoint import SECONDS_PER_HOUR


def billing_factor(increment_seconds: float, minimum_seconds: float, session_hours: float
                   ) -> float:
    """Billed time per used time of a session.

    Parameters
    ----------
    increment_seconds : float
        Billing increment [s].
    minimum_seconds : float
        Minimum billed time of a session [s].
    session_hours : float
        Mean session length S [h].

    Returns
    -------
    float
        Billed time / used time, >= 1 [-].

    Notes
    -----
    b = (max(S, S_min) + I / 2 x [S > S_min]) / S

    S the session [s], S_min the minimum billed [s], I the billing increment [s]: a session is
    billed max(S, minimum) seconds, plus half an increment on average when it outlasts the
    minimum (its last increment is rounded up).

    Examples
    --------
    >>> round(billing_factor(1.0, 60.0, 1.0), 6)   # 3600 s billed 3600.5 s
    1.000139
    """
    s = session_hours * SECONDS_PER_HOUR
    billed = max(s, minimum_seconds) + (increment_seconds / 2.0 if s > minimum_seconds else 0.0)
    return billed / s


def _mean_exposure(rate: float, seconds: float) -> float:
    """(1 - e^(-rate x seconds)) / rate, the expected time before an exponential clock with
    ``rate`` [1/s] rings or ``seconds`` pass [s]; ``seconds`` itself at rate 0. Written with
    expm1 over its argument so that a tiny rate loses nothing to cancellation."""
    x = rate * seconds
    return seconds if x == 0.0 else seconds * (-math.expm1(-x) / x)


def spot_billing_factor(increment_seconds: float, minimum_seconds: float,
                        session_hours: float, rate_per_instance_hour: float) -> float:
    """Expected billed time per expected used time of a spot session cut by interruptions.

    Parameters
    ----------
    increment_seconds : float
        Billing increment [s].
    minimum_seconds : float
        Minimum billed time of a session, m [s].
    session_hours : float
        Session length L when nothing interrupts it (the mean session) [h].
    rate_per_instance_hour : float
        Spot interruptions per instance-hour [1/h]; 0 for none.

    Returns
    -------
    float
        E[billed time] / E[used time], >= 1 [-]; :func:`billing_factor` of L at rate 0.

    Notes
    -----
    Interruptions of an instance arrive as a Poisson process of rate lambda =
    ``rate_per_instance_hour`` / 3600 per second, so the time to the first one is
    T ~ Exp(lambda). A session wants L seconds; an interruption ends it, billed for what ran
    (the work lost and the restart are the checkpoint overhead, models/checkpoint.py, counted
    as extra GPU-hours, each billed at this factor). Used time U = min(T, L); billed time
    B = max(U, m) + increment/2 when U > m (the last increment is rounded up, half of one on
    average), else m. For m < L:

        E[U] = (1 - exp(-lambda L)) / lambda
        E[B] = m + (exp(-lambda m) - exp(-lambda L)) / lambda + exp(-lambda m) increment/2

    since E[max(U, m)] = m + integral from m to L of P(U > u) du and P(U > m) = e^{-lambda m};
    for m >= L, B = m always: E[B] = m. The factor is E[B] / E[U], the ratio of expectations:
    by the renewal-reward theorem, billed time per used time over many sessions. As lambda -> 0
    it is :func:`billing_factor` of L: (L + increment/2) / L for L > m, m / L otherwise. The
    rate is each instance's own: a gang peer's interruption restarts the job (its cost is in
    the checkpoint overhead) but does not end this instance's billed session.

    Examples
    --------
    >>> round(spot_billing_factor(60.0, 1800.0, 0.75, 2.5), 4)   # L 2,700 s, MTTI 1,440 s
    1.6407
    """
    if rate_per_instance_hour == 0.0:
        return billing_factor(increment_seconds, minimum_seconds, session_hours)
    lam = rate_per_instance_hour / SECONDS_PER_HOUR
    L, m = session_hours * SECONDS_PER_HOUR, minimum_seconds
    used = _mean_exposure(lam, L)
    if m >= L:
        return m / used
    reached = math.exp(-lam * m)              # P(U > m)
    billed = m + reached * (_mean_exposure(lam, L - m) + increment_seconds / 2.0)
    return billed / used
