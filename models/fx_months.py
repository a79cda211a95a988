"""The plan's exchange rate of each month, read back from a plan document (issue 43).

A plan converts every payment in the foreign currency at the rate of its month
(models/prices.py ``PriceBook.fx_at``): the rate at the plan's first month moved by the yearly
trend. A plan document keeps that assumption in ``currencies.fx`` (models/document.py
``currencies_document``) and its monthly rows in calendar order from the first month, so the
rate of any of its months can be had again without the scenario: used to write owned costs in
the owned currency (models/owned_focus.py) and to convert a bill in the foreign currency at
the plan's rate (the ``fx`` part of the variance, models/variance_fx.py).
"""
from __future__ import annotations

import math
from typing import Any, Mapping


def month_number(first: str, month: str) -> int:
    """Months from one month to another.

    Parameters
    ----------
    first : str
        The month counted from, ``YYYY-MM``.
    month : str
        The month counted to, ``YYYY-MM``.

    Returns
    -------
    int
        Months from ``first`` to ``month``; negative before ``first``.

    Notes
    -----
    k = 12 (y - y_0) + (m - m_0), with y_0, m_0 the year and month of ``first`` and y, m those
    of ``month`` [months].
    """
    y0, m0 = int(first[:4]), int(first[5:7])
    y1, m1 = int(month[:4]), int(month[5:7])
    return (y1 - y0) * 12 + (m1 - m0)


def plan_rate(currencies: Mapping[str, Any] | None, first: str, month: str,
              currency: str) -> float | None:
    """The plan's rate of ``currency`` in ``month``, in reporting currency per unit.

    Parameters
    ----------
    currencies : mapping or None
        A plan document's ``currencies`` (``reporting`` and ``fx`` with ``foreign``, ``rate``
        [reporting currency per foreign unit] and ``trend_annual`` [fraction per year]).
    first : str
        The plan's first month, ``YYYY-MM``.
    month : str
        The month, ``YYYY-MM``.
    currency : str
        ISO 4217 code.

    Returns
    -------
    float or None
        1.0 for the reporting currency, the plan's rate for its foreign currency, None for a
        currency the plan holds no rate for.

    Notes
    -----
    As the plan itself converts (models/prices.py): with :math:`r_0` the rate at the first
    month, :math:`g` the yearly trend and :math:`k` the months since the first,

    .. math:: r_k = r_0 \\exp\\left(\\frac{k}{12} \\ln(1 + g)\\right) = r_0 (1+g)^{k/12}
    """
    if not currencies:
        return None
    if currency == currencies.get("reporting"):
        return 1.0
    fx = currencies.get("fx")
    if not fx or fx.get("foreign") != currency or not fx.get("rate"):
        return None
    k = month_number(first, month)
    return float(fx["rate"]) * math.exp(k / 12.0 * math.log1p(float(fx.get("trend_annual")
                                                                     or 0.0)))
