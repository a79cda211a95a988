"""The FX part of the variance (issue 43, item 2): a bill's cost in a foreign currency at the
plan's rate of its month, and the difference from the rate actually paid.

A plan converts every foreign payment at its month's rate (models/fx_months.py). A bill in the
plan's foreign currency is set against the plan at that same rate, so volume, mix, price and
idle commitments compare like with like; what the rate actually paid adds on top is the ``fx``
part (models/variance.py). The rate paid comes from the bill itself (a FOCUS row priced in the
foreign currency and billed in the reporting one: its two amounts) or, when the bill has no
amount in the reporting currency, from the rate the user states with the upload.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional

from models.fx_months import plan_rate


@dataclass(frozen=True)
class PlanMoney:
    """What converts a bill's amounts: the plan document's ``currencies`` (reporting currency,
    foreign currency and its rate), its first month, and the rate the user states as paid
    [reporting currency per foreign unit] (None: not stated)."""

    currencies: Mapping[str, Any]
    first: str
    stated_rate: Optional[float] = None


FX_MESSAGES = (
    "the cost is in %(currency)s and the plan has no exchange rate for it (the plan is in "
    "%(reporting)s)",
    "the cost is in %(currency)s and no rate actually paid can be had: the row has no amount "
    "in %(reporting)s and no exchange rate was stated with the upload",
)


def at_plan_rate(amount: float, currency: str, month: str, billed: Optional[float],
                 billed_currency: Optional[str], money: PlanMoney
                 ) -> tuple[float, float] | str:
    """One bill row's cost at the plan's rate and its FX difference, in the reporting currency.

    Parameters
    ----------
    amount : float
        The row's cost in ``currency`` (its pricing currency where it has one).
    currency : str
        ISO 4217 code of ``amount``.
    month : str
        The row's month, ``YYYY-MM``.
    billed, billed_currency : float or None, str or None
        The row's billed amount and its currency (FOCUS EffectiveCost and BillingCurrency),
        when the bill gives them.
    money : PlanMoney
        The plan's currencies and the rate stated with the upload.

    Returns
    -------
    tuple of float or str
        ``(cost at the plan's rate, fx)``, both in the reporting currency, or one of
        FX_MESSAGES when no rate can be had (the caller names the row and column).

    Notes
    -----
    For an amount :math:`a` in the reporting currency: :math:`(a, 0)`. For an amount
    :math:`a` in the plan's foreign currency, with :math:`r_m` the plan's rate of the row's
    month m (models.fx_months.plan_rate) and :math:`P` what was paid in the reporting
    currency, the billed amount :math:`b` when the row is billed in the reporting currency,
    else :math:`a \\rho` with :math:`\\rho` the rate stated with the upload:

    .. math::

        \\text{at plan rate} = a\\,r_m, \\qquad \\text{fx} = P - a\\,r_m

    so the cost lines at plan rates plus fx are exactly what was paid. A row in a currency
    the plan holds no rate for is refused, even when billed in the reporting currency: the
    plan assumed no such currency, so there is no plan rate to split price from FX.
    """
    reporting = str(money.currencies.get("reporting") or "USD")
    if currency == reporting:
        return amount, 0.0
    in_reporting = (billed is not None and billed_currency == reporting
                    and billed == billed)         # not NaN
    rate = plan_rate(money.currencies, money.first, month, currency)
    if rate is None:
        return FX_MESSAGES[0] % {"currency": currency or "-", "reporting": reporting}
    planned = amount * rate
    if in_reporting:
        paid = float(billed)
    elif money.stated_rate is not None:
        paid = amount * money.stated_rate
    else:
        return FX_MESSAGES[1] % {"currency": currency, "reporting": reporting}
    return planned, paid - planned
