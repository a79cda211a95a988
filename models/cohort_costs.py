"""What each cohort of a plan costs by month, per server or committed GPU and summed over a
plan's cohorts: the cost kernel's cohort rules (design 3, 4.2, 9.2; models/costs.py prices the
rest of a strategy around them).

- Owned servers: the purchase (price + install, models/server_terms.py) is paid at the start of
  the month bought, or its down payment with a loan whose ``pmt`` falls at each month end;
  maintenance is paid in each month a server takes work; a server is sold at the end of its
  useful life or of the horizon at its resale value, and a loan still running is paid off then;
  depreciation runs from the month it enters service.
- Commitments: the rate is fixed at signing; committed GPU-hours are paid whether used or not;
  upfront payments fall at the start of the term; under ``liquidate`` every payment of a term is
  counted in its month, under ``prorate`` payments after the horizon are left out and an upfront
  payment counts in proportion to its months inside the horizon.

Each schedule is of ONE server or GPU and cached in the price book (``book.cache``).
"""
from __future__ import annotations

import numpy as np

from models.capacity import CapacityPlan, CommitmentCohort, ServerCohort
from models.finance import depreciation_by_age, month_hours
from models.prices import UPFRONT_SHARE, PriceBook
from models.server_terms import server_terms

SERVER_LINES = ("capex", "loan_payment", "interest", "maintenance", "online", "resale",
                "depreciation", "gain", "payoff")


def server_schedule(book: PriceBook, c: ServerCohort) -> dict[str, np.ndarray]:
    """Cash flows and tax items of ONE server of a cohort, by month.

    Parameters
    ----------
    book : PriceBook
        Prices of the plan (its draws axis gives ``n``).
    c : ServerCohort
        The cohort; its count is not applied here.

    Returns
    -------
    dict of str to numpy.ndarray
        Per server, each [currency, (months, n)] by payment month unless said: ``capex``
        (purchase or down payment, start of month), ``loan_payment``, ``interest`` (its part of
        the payments), ``payoff`` (balance paid with the last payment, part of
        ``loan_payment``), ``maintenance``, ``resale`` (a credit: value received at the sale),
        ``depreciation``, ``gain`` (resale over book value; < 0 is a loss), ``online`` (1 in a
        month the server takes work [-, (months,)]) and, when it is sold within the months,
        ``book_fraction`` (basis left at sale [fraction of basis]). Cached in ``book.cache``.

    Notes
    -----
    With price P, basis B = P + install and principal B (1 - down)
    (:func:`models.server_terms.server_terms`) [currency per server], bought b, online o, sold s
    [months]: capex_b = B (cash) or B x down (a loan); loan payments, interest and payoff of
    :meth:`models.server_terms.ServerTerms.loan` (s - b);
    maintenance_m = a / 12 x P while online, a the annual maintenance fraction [fraction per year];
    resale_{s-1} = P x f(s - b) (x (1 - drop) once a successor is out), f
    :meth:`models.prices.PriceBook.resale_fraction`; depreciation_m = B d(m - o),
    :func:`models.finance.depreciation_by_age`; gain_{s-1} = resale - B (1 - sum d) [currency].
    Priced in another currency than the reporting one, each payment and the resale are converted
    at their month's rate and depreciation at the purchase month's (``_convert_server``).
    """
    book = book.for_type(c.type)
    key = ("server", c.bought, c.online, c.sold, c.price, c.install)
    cached = book.cache.get(key)
    if cached is not None:
        return cached
    s, T, n = book.scenario, book.months, book.n
    o = s.owned
    out = {name: np.zeros((T, n)) for name in SERVER_LINES if name != "online"}
    online = np.zeros(T)
    online[max(c.online, 0):max(c.sold, 0)] = 1.0
    out["online"] = online
    terms = server_terms(book, c)
    price, basis = terms.price, terms.basis
    last = c.sold - 1                     # month index at whose end the server is sold
    if c.bought >= 0:
        out["capex"][c.bought] = terms.down
        if o.financing.kind == "loan":
            pay, interest, payoff = terms.loan(c.sold - c.bought)
            out["payoff"][c.sold - 1] = payoff  # part of loan_payment
            out["loan_payment"][c.bought:c.sold] = pay
            out["interest"][c.bought:c.sold] = interest
    out["maintenance"] += o.maintenance_fraction_annual / 12.0 * np.outer(online, price)
    if last >= 0:
        value = price * book.resale_fraction(c.sold - c.bought)
        if book.resale_drop_month is not None and last >= book.resale_drop_month:
            value = value * (1.0 - book.resale_drop)    # sold once the successor is out
        out["resale"][last] = value
        by_age = depreciation_by_age(s.finance.tax_depreciation, o.useful_life_months,
                                     c.sold - c.online)
        first = max(c.online, 0)
        ages = np.arange(first, c.sold) - c.online
        out["depreciation"][first:c.sold] = np.outer(by_age[ages], basis)
        out["gain"][last] = value - basis * (1.0 - by_age.sum())
        out["book_fraction"] = 1.0 - by_age.sum()   # of the basis, left at sale
    if book.converts("owned"):
        _convert_server(book, c, out, basis, last)
    book.cache[key] = out
    return out


def _convert_server(book: PriceBook, c: ServerCohort, out: dict, basis: np.ndarray,
                    last: int) -> None:
    """Priced in the owned currency, paid in the reporting one: each payment and the resale at
    its month's rate; depreciation on the basis at the rate of the purchase month (the asset's
    historical cost); the gain on sale is the reporting-currency resale over that book value,
    so a currency move shows in it."""
    for name in ("capex", "loan_payment", "interest", "payoff", "maintenance", "resale"):
        out[name] = book.convert("owned", out[name])
    historical = book.fx_at("owned", c.bought)
    out["depreciation"] = out["depreciation"] * historical
    if last >= 0:
        out["gain"][last] = out["resale"][last] - basis * historical * out["book_fraction"]


def commitment_schedule(book: PriceBook, c: CommitmentCohort) -> dict[str, np.ndarray]:
    """Payments and the prepaid deduction of ONE committed GPU of a cohort.

    Parameters
    ----------
    book : PriceBook
        Price book (offer rates, calendar, horizon rule).
    c : CommitmentCohort
        The cohort; its GPU count is not applied here.

    Returns
    -------
    dict of str to numpy.ndarray
        Per committed GPU: ``upfront`` (start of the term), ``monthly`` and
        ``prepaid_deduction`` (the upfront deducted evenly over the term) [currency,
        (months, n)]; ``monthly_after_horizon``, what the term pays monthly after the horizon
        (counted in the tail months under ``liquidate``, left out under ``prorate``), and
        ``upfront_for_after_horizon``, the part of an upfront payment that covers those months
        (paid at signing; left out under ``prorate``) [currency, (n,)]. Cached in ``book.cache``.

    Notes
    -----
    With r the rate fixed at signing (:meth:`models.prices.PriceBook.offer_rate`, or the held
    contract's) [currency per GPU-hour], u the upfront share of the payment option [fraction], h_k
    the hours of the term's k-th month [h], T the term, s the start, H the horizon [months]:
    U = u r sum_k h_k (the whole upfront); upfront_s = U x I / T, I = T under ``liquidate`` else
    min(T, H - s); monthly_m = (1 - u) r h_{m-s} and prepaid_deduction_m = U / T for the months
    counted (to the price book's end under ``liquidate``, else to H) [currency per GPU];
    monthly_after_horizon = (1 - u) r sum_{m >= H} h_{m-s} fx(m); upfront_for_after_horizon =
    U x A / T, A = max(s + T - H, 0). A converted market pays monthly amounts at each month's rate
    and the upfront (and its deductions) at the signing month's.
    """
    key = ("commitment", c.offer, c.start, c.term, c.rate, c.payment, c.market)
    cached = book.cache.get(key)
    if cached is not None:
        return cached
    s, T, n, H = book.scenario, book.months, book.n, book.horizon
    offer = book.offers.get(c.offer)
    rate = np.full(n, c.rate) if c.rate is not None else book.offer_rate(offer, c.start)
    share = UPFRONT_SHARE[c.payment or offer.payment]
    hours = month_hours(book.labels[0], c.start, c.term)
    liquidate = s.finance.horizon_end == "liquidate"
    limit = T if liquidate else H
    first, end = max(c.start, 0), min(c.start + c.term, limit)
    counted = max(end - first, 0)
    upfront_total = share * rate * hours.sum()
    out = {name: np.zeros((T, n)) for name in ("upfront", "monthly", "prepaid_deduction")}
    if c.start >= 0:
        inside = c.term if liquidate else min(c.term, H - c.start)
        out["upfront"][c.start] = upfront_total * inside / c.term
    if counted:
        rows = np.arange(first, end) - c.start
        out["monthly"][first:end] = np.outer(hours[rows], (1.0 - share) * rate)
        out["prepaid_deduction"][first:end] = upfront_total / c.term
    after = max(c.start + c.term - H, 0)
    later = hours[c.term - after:] if after else np.zeros(0)
    market = c.market   # the cloud's currency, or a signed contract's own (reporting, foreign)
    out["monthly_after_horizon"] = (1.0 - share) * rate * book.fx_sum(
        market, np.arange(c.start + c.term - after, c.start + c.term), later)
    out["upfront_for_after_horizon"] = (upfront_total * after / c.term if c.start >= 0
                                        else 0.0 * rate)
    if book.converts(market):
        # the rate is fixed at signing in the contract's currency; each payment is converted
        # at its month's rate, an upfront one (and its deduction over the term) at signing's
        signing = book.fx_at(market, c.start)
        out["monthly"] = book.convert(market, out["monthly"])
        out["upfront"] = book.convert(market, out["upfront"])
        out["prepaid_deduction"] = out["prepaid_deduction"] * signing
        out["upfront_for_after_horizon"] = out["upfront_for_after_horizon"] * signing
    book.cache[key] = out
    return out


def cohort_items(book: PriceBook, plan: CapacityPlan) -> dict:
    """What the cohorts themselves cost by month.

    Parameters
    ----------
    book : PriceBook
        Price book the cohorts are priced with.
    plan : CapacityPlan
        Cohorts of servers and commitments; a cohort of no server or no GPU is passed
        over.

    Returns
    -------
    dict
        ``capex``, ``loan_payment``, ``maintenance``, ``resale_credit``,
        ``commitment_upfront``, ``commitment`` [currency, (months, n)]; the tax items that are
        not a cost line of their own: ``tax_items`` (interest, depreciation, losses on sale,
        prepaid commitments deducted over the term), of which ``prepaid``, and ``gains``
        (taxable gains on sale) [currency, (months, n)]; ``online_by_type``, servers online by
        server type id [servers,
        (months,)]. Items a plan does not have are absent, except ``online_by_type`` (empty
        without a server).

    Notes
    -----
    Each item is the sum over cohorts of count x the per-server item of :func:`server_schedule`
    (servers) or gpus x the per-GPU item of :func:`commitment_schedule` (commitments):
    tax_items = sum_servers count (interest + depreciation + max(-gain, 0)) + sum_commitments
    gpus x prepaid_deduction; gains = sum_servers count x max(gain, 0); online_i(m) = sum over
    the server cohorts of type i of count x online(m) [servers] [currency].
    """
    out: dict = {"online_by_type": {}}

    def add(name: str, value: np.ndarray) -> None:
        out[name] = out[name] + value if name in out else value

    for c in plan.servers:
        if not c.count:
            continue
        sch = server_schedule(book, c)
        by_type = out["online_by_type"]     # one type (None) or a fleet's, read alike
        by_type[c.type] = by_type.get(c.type, 0.0) + c.count * sch["online"]
        for name in ("capex", "loan_payment", "maintenance"):
            if sch[name].any():
                add(name, c.count * sch[name])
        add("resale_credit", c.count * sch["resale"])
        add("tax_items", c.count * (sch["interest"] + sch["depreciation"]
                                    + np.maximum(-sch["gain"], 0.0)))
        add("gains", c.count * np.maximum(sch["gain"], 0.0))
    for c in plan.commitments:
        if not c.gpus:
            continue
        sch = commitment_schedule(book, c)
        if sch["upfront"].any():
            add("commitment_upfront", c.gpus * sch["upfront"])
            add("prepaid", c.gpus * sch["prepaid_deduction"])
            add("tax_items", c.gpus * sch["prepaid_deduction"])
        if sch["monthly"].any():
            add("commitment", c.gpus * sch["monthly"])
    return out
