"""The forecast re-planned (issue 43): actuals to date, then a re-plan's months.

models/forecast.py forecasts the approved plan's whole span as actuals to date plus the
approved plan for the months left. A re-plan made from the actuals plans the months left
again, from the position held and the usage seen; its forecast is the same actuals to date
plus the re-plan's own months (those after the last actual month, including the months after
its horizon in which payments are still owed). Exact rationals, rounded to the cent once.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping, Sequence

from models.forecast import _cents
from models.variance import MonthActuals, _plan_total, month_variance


def replanned_forecast(monthly: Sequence[Mapping[str, Any]], actuals: Sequence[MonthActuals],
                       replanned: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Actuals to date plus the re-plan, over the calendar year and the whole span.

    Parameters
    ----------
    monthly : sequence of mapping
        The approved strategy's monthly rows (models.document.month_rows), calendar order.
    actuals : sequence of MonthActuals
        Months of the approved plan with actuals (as models.forecast.forecast takes them).
    replanned : sequence of mapping
        The re-plan's strategy's monthly rows; its rows up to the last actual month, if any,
        are not counted.

    Returns
    -------
    dict
        ``last_actual``; ``to_date_cents`` (the actuals' total over the approved plan's
        months up to the last actual month); ``year``: ``year`` and ``forecast_cents`` over
        the calendar year of the last actual month; ``total``: ``forecast_cents`` over every
        month of both, and ``first`` and ``last``, the re-plan's months counted;
        ``cumulative``: per re-plan month counted, ``month`` and ``cents``, the running
        forecast re-planned (the chart's line, continuing the actual's).

    Notes
    -----
    With L the last actual month, :math:`A_m` the actual total of month m (models.variance),
    :math:`P_m` the approved plan's total and :math:`R_m` the re-plan's total (costs less
    credits), the forecast re-planned of a span S is

    .. math:: \\sum_{m \\in S, m \\le L} (A_m \\text{ if given, else } P_m)
              + \\sum_{m \\in S, m > L} R_m

    A month up to L without actuals counts at the approved plan, as in models.forecast. The
    running forecast of a re-plan month n > L is the same sum over every month up to n; each
    is rounded to the cent once, so a step can differ by a cent from the month's rounded total.
    """
    given = {a.month: a for a in actuals}
    last = max(given)
    year = last[:4]
    to_date = in_year = Fraction(0)
    for row in monthly:
        month = str(row["month"])
        if month > last:
            continue
        value = month_variance(row, given[month])["actual"] if month in given \
            else _plan_total(row)
        to_date += value
        if month[:4] == year:
            in_year += value
    later = [r for r in replanned if str(r["month"]) > last]
    running, cumulative = to_date, []
    for r in later:
        running += _plan_total(r)
        cumulative.append({"month": str(r["month"]), "cents": _cents(running)})
    rest = running - to_date
    rest_year = sum((_plan_total(r) for r in later if str(r["month"])[:4] == year),
                    Fraction(0))
    return {"last_actual": last, "to_date_cents": _cents(to_date),
            "year": {"year": year, "forecast_cents": _cents(in_year + rest_year)},
            "total": {"forecast_cents": _cents(to_date + rest),
                      "first": str(later[0]["month"]) if later else None,
                      "last": str(later[-1]["month"]) if later else None},
            "cumulative": cumulative}
