"""Discounting, present value, payback and loan schedules (design section 3).

Timing: a recurring cost of month m (1-based) is paid at the end of month m and discounted by
(1+r_m)^m; a purchase or upfront payment at the start of month m by (1+r_m)^(m-1).
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import numpy_financial as npf


def monthly_rate(annual_rate: float) -> float:
    """Monthly discount rate equivalent to an annual one.

    Parameters
    ----------
    annual_rate : float
        Annual rate r [fraction per year].

    Returns
    -------
    float
        r_m = (1 + r)^(1/12) - 1 [fraction per month].

    Notes
    -----
    r_m = (1 + r)^(1/12) - 1

    r the annual rate [fraction per year], r_m the monthly one [fraction per month].

    Examples
    --------
    >>> round(monthly_rate(0.08), 6)
    0.006434
    """
    return (1.0 + annual_rate) ** (1.0 / 12.0) - 1.0


def end_of_month_factors(months: int, annual_rate: float) -> np.ndarray:
    """Discount factors of payments at the end of each month.

    Parameters
    ----------
    months : int
        Months of payments [months].
    annual_rate : float
        Annual discount rate [fraction per year].

    Returns
    -------
    numpy.ndarray
        1 / (1 + r_m)^m for m = 1..months [-, (months,)].

    Notes
    -----
    f_m = (1 + r_m)^(-m), m = 1..M

    r_m the monthly rate of :func:`monthly_rate` [fraction per month], M = ``months``.
    """
    return (1.0 + monthly_rate(annual_rate)) ** -np.arange(1, months + 1, dtype=float)


def start_of_month_factors(months: int, annual_rate: float) -> np.ndarray:
    """Discount factors of payments at the start of each month.

    Parameters
    ----------
    months : int
        Months of payments, from month 1 [months].
    annual_rate : float
        Discount rate r, per year [fraction per year].

    Returns
    -------
    numpy.ndarray
        1 / (1 + r_m)^(m-1) for m = 1..months [-, (months,)]; 1 in month 1.

    Notes
    -----
    f_m = (1 + r_m)^(-(m-1)), m = 1..M

    r_m the monthly rate of :func:`monthly_rate` [fraction per month], M = ``months``.
    """
    return (1.0 + monthly_rate(annual_rate)) ** -np.arange(0, months, dtype=float)


def trend_factors(months: int, annual_trend: float) -> np.ndarray:
    """Price multipliers of a price that moves by an annual trend.

    Parameters
    ----------
    months : int
        Months of prices [months].
    annual_trend : float
        Annual price change, -0.1 for prices falling by 10 % a year [fraction per year].

    Returns
    -------
    numpy.ndarray
        (1 + trend)^((m-1)/12) for m = 1..months [-, (months,)]; 1 in month 1.

    Notes
    -----
    t_m = (1 + g)^((m-1)/12), m = 1..M

    g the annual trend [fraction per year], M = ``months``.
    """
    return (1.0 + annual_trend) ** (np.arange(months, dtype=float) / 12.0)


def level_payment(principal: float, apr: float, term_months: int) -> float:
    """Level monthly payment of a loan.

    Parameters
    ----------
    principal : float
        Amount borrowed [currency].
    apr : float
        Annual percentage rate, compounded monthly at apr / 12 [fraction per year].
    term_months : int
        Term of the loan [months].

    Returns
    -------
    float
        Payment at each month end, positive (money out) [currency per month].

    Notes
    -----
    P = B r / (1 - (1 + r)^(-n)), r = apr / 12

    B the principal [currency], r the monthly rate [fraction per month], n the term [months].
    numpy-financial ``pmt(apr/12, term, -principal)``, Excel's PMT; the principal goes in negative
    so that the payment comes out positive, the sign convention of this package. A rate so small
    that r n < 1e-12 is no interest (pmt would divide by zero): P = B / n, which is the limit of
    the formula.

    Examples
    --------
    >>> round(level_payment(120_000, 0.06, 36), 2)
    3650.63
    >>> level_payment(1_200, 0.0, 12)
    100.0
    """
    rate = apr / 12.0
    if rate * term_months < 1e-12:
        return principal / term_months
    return float(npf.pmt(rate, term_months, -principal))


def loan_schedule(principal: float, apr: float, term_months: int, horizon_months: int
                  ) -> tuple[np.ndarray, np.ndarray, float]:
    """Monthly payments of a loan, their interest part, and the balance paid off early.

    Parameters
    ----------
    principal : float
        Amount borrowed [currency]; 0 or less is no loan (all zeros).
    apr : float
        Annual percentage rate, compounded monthly at apr / 12 [fraction per year].
    term_months : int
        Term of the loan [months].
    horizon_months : int
        Months from the loan's start to the end of the horizon or to the sale [months].

    Returns
    -------
    payments : numpy.ndarray
        Payment at each month end, the payoff included in the last month [currency,
        (horizon_months,)].
    interest : numpy.ndarray
        Interest part of each payment [currency, (horizon_months,)].
    payoff : float
        Balance still owed when the horizon ends inside the term, paid with the last payment;
        0 otherwise [currency].

    Notes
    -----
    For m = 1..min(n, H): interest_m = b_{m-1} r, b_m = b_{m-1} + interest_m - P, payment_m = P,
    with b_0 = B the principal [currency], r = apr / 12 [fraction per month], P the level payment
    of :func:`level_payment` [currency per month], n the term and H the horizon [months].
    payoff = b_H when n > H, else 0 [currency]; it is added to payment_H.
    Payments are numpy-financial ``pmt(apr/12, term, -principal)`` at each month end. All three are
    positive (money out).
    """
    payments = np.zeros(horizon_months)
    interest = np.zeros(horizon_months)
    if principal <= 0:
        return payments, interest, 0.0
    rate = apr / 12.0
    payment = level_payment(principal, apr, term_months)
    balance = principal
    for m in range(min(term_months, horizon_months)):
        interest[m] = balance * rate
        balance = balance + interest[m] - payment
        payments[m] = payment
    payoff = balance if term_months > horizon_months else 0.0
    payments[horizon_months - 1] += payoff
    return payments, interest, payoff


def payback_month(strategy_cumulative: np.ndarray, baseline_cumulative: np.ndarray
                  ) -> Optional[int]:
    """First month from which a strategy's cumulative saving against the baseline is positive
    and stays at or above zero.

    Parameters
    ----------
    strategy_cumulative : numpy.ndarray
        Cumulative cost of the strategy by month [currency, (months,)].
    baseline_cumulative : numpy.ndarray
        Cumulative cost of the baseline by month [currency, (months,)].

    Returns
    -------
    int or None
        The month, 1-based [months]; None if the saving is not positive to the end of the
        months given, or if the strategy is never dearer than the baseline (nothing to pay
        back: :func:`never_dearer` tells the two apart).

    Notes
    -----
    With saving(m) = baseline(m) - strategy(m): the month after the last one with
    saving < 0, or the first one after it with saving > 0. Months that tie (a plan that
    rents on demand at first) are not a payback. Ties are within 1e-9 of the largest
    baseline figure.

    Examples
    --------
    >>> payback_month(np.array([5.0, 6.0, 7.0]), np.array([2.0, 5.0, 8.0]))
    3
    >>> payback_month(np.array([1.0, 9.0, 10.0]), np.array([1.0, 5.0, 12.0]))  # tie, dearer
    3
    """
    saving = np.asarray(baseline_cumulative, float) - np.asarray(strategy_cumulative, float)
    tie = _tie(baseline_cumulative)
    dearer = np.flatnonzero(saving < -tie)
    if not dearer.size:
        return None
    start = int(dearer[-1]) + 1
    ahead = np.flatnonzero(saving[start:] > tie)
    return start + int(ahead[0]) + 1 if ahead.size else None


def never_dearer(strategy_cumulative: np.ndarray, baseline_cumulative: np.ndarray) -> bool:
    """Whether a strategy's cumulative cost is at or below the baseline's in every month.

    Parameters
    ----------
    strategy_cumulative : numpy.ndarray
        Cumulative cost of the strategy by month [currency, (months,)].
    baseline_cumulative : numpy.ndarray
        Cumulative cost of the baseline by month [currency, (months,)].

    Returns
    -------
    bool
        True when there is nothing to pay back (ties within 1e-9 of the largest baseline
        figure count as at or below).

    Notes
    -----
    True when saving_m = baseline_m - strategy_m >= -tol for every month m, tol = 1e-9 x
    max_m |baseline_m| [currency].

    Examples
    --------
    >>> never_dearer(np.array([1.0, 2.0]), np.array([1.0, 3.0]))
    True
    """
    saving = np.asarray(baseline_cumulative, float) - np.asarray(strategy_cumulative, float)
    return not np.any(saving < -_tie(baseline_cumulative))


def _tie(baseline_cumulative: np.ndarray) -> float:
    """How close two cumulative costs must be to tie: 1e-9 of the largest [currency]."""
    return 1e-9 * max(1.0, float(np.max(np.abs(baseline_cumulative), initial=0.0)))


def resale_fraction(age_months: float, by_year: tuple[float, ...]) -> float:
    """Resale value as a fraction of the purchase price at an age.

    Parameters
    ----------
    age_months : float
        Age at sale [months].
    by_year : tuple of float
        Resale fraction at the end of year 1, 2, ... [fraction of purchase price].

    Returns
    -------
    float
        Resale fraction [fraction of purchase price].

    Notes
    -----
    f(a) = v_k + (v_{k+1} - v_k) (a - 12 k) / 12 for 12 k <= a < 12 (k + 1), with v_0 = 1 and
    v_k the fraction at the end of year k [fraction of purchase price], a the age [months]: linear
    by month between year ends; past the last year K, f = v_K.

    Examples
    --------
    >>> resale_fraction(18, (0.65, 0.45))
    0.55
    """
    ages = np.arange(0, 12 * (len(by_year) + 1), 12, dtype=float)
    values = np.concatenate([[1.0], by_year])
    return float(np.interp(age_months, ages, values))


MACRS_5 = (0.20, 0.32, 0.192, 0.1152, 0.1152, 0.0576)


def depreciation_by_age(method: str, life_months: int, months: int) -> np.ndarray:
    """Tax depreciation per month of service as a fraction of the depreciable basis.

    Parameters
    ----------
    method : str
        ``"straight_line"`` or ``"macrs_5"`` (US MACRS 5-year).
    life_months : int
        Depreciation life of straight-line [months].
    months : int
        Months in service to return [months].

    Returns
    -------
    numpy.ndarray
        Depreciation of each month in service [fraction of basis, (months,)].

    Notes
    -----
    Straight-line: d(a) = 1 / L for a = 1..L, 0 after; US MACRS 5-year: d(a) = p_y / 12 for each
    month a of year y = ceil(a / 12) <= 6, 0 after; a the month in service [months], L =
    ``life_months`` [months], p_y MACRS's percentage of year y [fraction of basis].
    """
    if method == "macrs_5":
        per_month = np.repeat(np.array(MACRS_5) / 12.0, 12)
    else:
        per_month = np.full(life_months, 1.0 / life_months)
    out = np.zeros(max(months, 0))
    n = min(len(out), len(per_month))
    out[:n] = per_month[:n]
    return out


def month_hours(first_month: str, start: int, count: int) -> np.ndarray:
    """Calendar hours of consecutive months.

    Parameters
    ----------
    first_month : str
        The plan's first month, ``'YYYY-MM'``.
    start : int
        Index of the first month wanted, 0-based from ``first_month``; negative is before the
        plan [months].
    count : int
        Months wanted [months].

    Returns
    -------
    numpy.ndarray
        Hours of each month, days x 24 [h, (count,)].

    Notes
    -----
    hours_m = 24 x (days in month ``first_month`` + ``start`` + m), m = 0..count-1 [h].

    Examples
    --------
    >>> month_hours("2027-01", 0, 3)
    array([744., 672., 744.])
    """
    first = np.datetime64(first_month, "M") + start
    edges = (first + np.arange(count + 1)).astype("datetime64[h]")
    return np.diff(edges).astype(float)
