"""Plan against actual, the rest of the page (issue 43): the cumulative spend month by month,
the forecast (actuals to date, then the plan for the months left) and the table by cost line.

The same baseline as models/variance.py: one strategy's monthly rows of a plan document, and
a month's actuals as :class:`models.variance.MonthActuals` (a line the actuals do not give is
taken as planned). Amounts are exact rationals until they are rounded to the cent at the end,
as in the variance; a running sum is rounded once, not summed from rounded months.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping, Sequence

from models.lines import COST_LINES, CREDIT_LINES
# the variance's own exact figures, rounding and plan total, so that the page's numbers agree
from models.variance import (MESSAGES, MonthActuals, VarianceError, _plan_total, _q,
                             _round_half_even, month_variance)


def _cents(x: Fraction) -> int:
    return _round_half_even(x * 100)


def forecast(monthly: Sequence[Mapping[str, Any]], actuals: Sequence[MonthActuals]
             ) -> dict[str, Any]:
    """Cumulative plan against actual, and the forecast of the plan's whole span.

    Parameters
    ----------
    monthly : sequence of mapping
        One strategy's monthly rows of a plan document, in calendar order (every row,
        including the months after the horizon in which payments are still owed).
    actuals : sequence of MonthActuals
        Months of the plan, none twice.

    Returns
    -------
    dict
        ``months``: per plan month ``month``, ``plan_cents``, ``actual_cents`` (None where no
        actuals), ``forecast_cents`` (the actual where given, else the plan) and the running
        sums ``cumulative_plan_cents``, ``cumulative_actual_cents`` (None after the last
        actual month) and ``cumulative_forecast_cents``; ``to_date``: the plan and actual
        totals of the months with actuals and their difference; ``total``: the plan's and the
        forecast's totals over every month and their difference; ``year``: the same over the
        calendar year of the last actual month. All in cents of the plan's currency.

    Notes
    -----
    With plan total :math:`P_m` and actual total :math:`A_m` of month m (costs less credits,
    models.variance.month_variance), and :math:`M` the set of months with actuals, the
    forecast of month m is :math:`F_m = A_m` for :math:`m \\in M`, else :math:`P_m`, and the
    forecast of a span is :math:`\\sum_{m \\in M} A_m + \\sum_{m \\notin M} P_m`: actuals to
    date plus the plan for the months left (a month without actuals before the last actual
    month counts at its plan too). Running sums are exact and each is rounded to the cent on
    its own (halves to even).
    """
    rows = [r for r in monthly]
    given: dict[str, MonthActuals] = {}
    names = [str(r["month"]) for r in rows]
    for a in actuals:
        if a.month not in names:
            raise VarianceError(MESSAGES[6], month=a.month, first=names[0] if names else "?",
                                last=names[-1] if names else "?")
        if a.month in given:
            raise VarianceError(MESSAGES[7], month=a.month)
        given[a.month] = a
    if not given:
        raise VarianceError(MESSAGES[8])
    last = max(given)
    plan_sum = actual_sum = forecast_sum = Fraction(0)
    to_date = {"plan": Fraction(0), "actual": Fraction(0)}
    year = {"plan": Fraction(0), "forecast": Fraction(0)}
    months = []
    for row, month in zip(rows, names):
        exact = month_variance(row, given[month]) if month in given else None
        plan = exact["plan"] if exact else _plan_total(row)
        actual = exact["actual"] if exact else None
        value = actual if actual is not None else plan
        plan_sum += plan
        forecast_sum += value
        if actual is not None:
            to_date["plan"] += plan
            to_date["actual"] += actual
        if month <= last:
            actual_sum += value
        if month[:4] == last[:4]:
            year["plan"] += plan
            year["forecast"] += value
        months.append({"month": month, "plan_cents": _cents(plan),
                       "actual_cents": _cents(actual) if actual is not None else None,
                       "forecast_cents": _cents(value),
                       "cumulative_plan_cents": _cents(plan_sum),
                       "cumulative_actual_cents": _cents(actual_sum) if month <= last
                       else None,
                       "cumulative_forecast_cents": _cents(forecast_sum)})
    return {"months": months, "last_actual": last,
            "to_date": {"plan_cents": _cents(to_date["plan"]),
                        "actual_cents": _cents(to_date["actual"]),
                        "difference_cents": _cents(to_date["actual"] - to_date["plan"])},
            "total": {"plan_cents": _cents(plan_sum), "forecast_cents": _cents(forecast_sum),
                      "difference_cents": _cents(forecast_sum - plan_sum)},
            "year": {"year": last[:4], "plan_cents": _cents(year["plan"]),
                     "forecast_cents": _cents(year["forecast"]),
                     "difference_cents": _cents(year["forecast"] - year["plan"])}}


def by_line(monthly: Sequence[Mapping[str, Any]], actuals: Sequence[MonthActuals]
            ) -> list[dict[str, Any]]:
    """Plan and actual of each cost and credit line over the months with actuals.

    Parameters
    ----------
    monthly : sequence of mapping
        One strategy's monthly rows of a plan document.
    actuals : sequence of MonthActuals
        Months of the plan (months outside it are an error, as in the variance).

    Returns
    -------
    list of dict
        Per line that the plan or the actuals hold over those months (in the order of
        models.lines: costs, then credits): ``line``, ``credit`` (bool), ``plan_cents``,
        ``actual_cents``, ``difference_cents`` (actual - plan; a credit's as the credit
        itself, so more credit is positive here) and ``as_planned`` (True when no month's
        actuals gave the line: its actual is the plan's).

    Notes
    -----
    A line's actual over months :math:`M` is :math:`\\sum_{m \\in M} a_{l,m}`, where
    :math:`a_{l,m}` is the line's cost in month m's actuals, or its plan cost when the actuals
    do not give it (so its difference is 0 in that month). Each sum is exact and rounded once.
    """
    rows = {str(r["month"]): r for r in monthly}
    out = []
    for line in COST_LINES + CREDIT_LINES:
        plan = actual = Fraction(0)
        read = False
        for a in actuals:
            if a.month not in rows:
                raise VarianceError(MESSAGES[6], month=a.month, first=next(iter(rows), "?"),
                                    last=list(rows)[-1] if rows else "?")
            p = _q(float(rows[a.month].get(line, 0.0)))
            plan += p
            if line in a.costs:
                actual += _q(float(a.costs[line]))
                read = True
            else:
                actual += p
        if plan == 0 and actual == 0 and not read:
            continue
        out.append({"line": line, "credit": line in CREDIT_LINES, "plan_cents": _cents(plan),
                    "actual_cents": _cents(actual), "difference_cents": _cents(actual - plan),
                    "as_planned": not read})
    return out
