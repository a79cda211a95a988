"""Discounting, present value, payback and loan schedules (design section 3).

Timing: a recurring cost of month m (1-based) is paid at the end of month m and discounted by
(1+r_m)^m; a purchase or upfront payment at the start of month m by (1+r_m)^(m-1).
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import numpy_financial as npf


def monthly_rate(annual_rate: float) -> float:
    """r_m = (1+r)^(1/12) - 1 [fraction per month]."""
    return (1.0 + annual_rate) ** (1.0 / 12.0) - 1.0


def end_of_month_factors(months: int, annual_rate: float) -> np.ndarray:
    """Discount factors 1/(1+r_m)^m for m = 1..months [-]."""
    return (1.0 + monthly_rate(annual_rate)) ** -np.arange(1, months + 1, dtype=float)


def start_of_month_factors(months: int, annual_rate: float) -> np.ndarray:
    """Discount factors 1/(1+r_m)^(m-1) for m = 1..months [-]; 1 in month 1."""
    return (1.0 + monthly_rate(annual_rate)) ** -np.arange(0, months, dtype=float)


def trend_factors(months: int, annual_trend: float) -> np.ndarray:
    """Price multiplier (1+trend)^((m-1)/12) for m = 1..months [-]."""
    return (1.0 + annual_trend) ** (np.arange(months, dtype=float) / 12.0)


def level_payment(principal: float, apr: float, term_months: int) -> float:
    """The level monthly payment of a loan, numpy-financial ``pmt(apr/12, term, -principal)``
    (Excel's PMT) [currency].

    A rate so small that (1 + r)^n - 1 rounds to zero is no interest (pmt would divide by
    zero): principal / term, which is the limit of the formula.
    """
    rate = apr / 12.0
    if rate * term_months < 1e-12:
        return principal / term_months
    return float(npf.pmt(rate, term_months, -principal))


def loan_schedule(principal: float, apr: float, term_months: int, horizon_months: int
                  ) -> tuple[np.ndarray, np.ndarray, float]:
    """Monthly payments, their interest part, and the balance paid off early [currency].

    Payments are numpy-financial ``pmt(apr/12, term, -principal)`` at each month end; when the
    horizon ends inside the term, the outstanding balance is paid off with the last payment.
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
    """First month (1-based) in which the strategy's cumulative cost is at or below the
    baseline's; None if never within the horizon."""
    at_or_below = np.flatnonzero(strategy_cumulative <= baseline_cumulative + 1e-9)
    return int(at_or_below[0]) + 1 if at_or_below.size else None


def resale_fraction(age_months: float, by_year: tuple[float, ...]) -> float:
    """Resale value as a fraction of purchase price at an age [-].

    Linear by month between year ends; age 0 -> 1.0; past the last year the last value holds.
    """
    ages = np.arange(0, 12 * (len(by_year) + 1), 12, dtype=float)
    values = np.concatenate([[1.0], by_year])
    return float(np.interp(age_months, ages, values))


MACRS_5 = (0.20, 0.32, 0.192, 0.1152, 0.1152, 0.0576)


def depreciation_by_age(method: str, life_months: int, months: int) -> np.ndarray:
    """Tax depreciation per month of service as a fraction of the depreciable basis [-].

    Straight-line: 1/life for each of the first ``life_months`` months in service; US MACRS
    5-year: each year's percentage over its 12 months (six years). Zero afterwards.
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
    """Calendar hours of ``count`` months from month index ``start`` of a plan that begins in
    ``first_month`` ('YYYY-MM'); ``start`` may be negative (before the plan) [h]."""
    first = np.datetime64(first_month, "M") + start
    edges = (first + np.arange(count + 1)).astype("datetime64[h]")
    return np.diff(edges).astype(float)
