"""A schedule as the reviewer reads it: decisions, purchase orders and cash (issue 14); its
words are models/schedule_words.py's.

A schedule is a tuple of :class:`models.scenario_schedule.Decision`; what it costs comes from the
strategy the engine priced with it. Purchase orders list what to buy, sell or sign and when,
with the cash paid or, for a sale, the resale received; cash is the purchases and upfront
payments by quarter and by calendar year (the figures a capital budget is set against), and by
year with sale proceeds beside them and the net.
"""
from __future__ import annotations

import numpy as np

from models.cohort_costs import commitment_schedule, server_schedule
from models.fleet import default_type
from models.prices import PriceBook
from models.scenario import Scenario
from models.server_terms import server_terms
from models.schedule_words import quarter
from models.strategy_result import StrategyResult


ALL = object()   # sale_proceeds of every server type


def sale_proceeds(book: PriceBook, r: StrategyResult, type_id=ALL) -> dict[int, float]:
    """What the servers a schedule sells bring, by the month of the decision to sell.

    Parameters
    ----------
    book : PriceBook
        The prices the strategy was priced with.
    r : StrategyResult
        A strategy priced with a schedule.
    type_id : str, optional
        Only the servers of this server type (issue 26); every server by default.

    Returns
    -------
    dict of int to float
        Decision month index (0-based) to the resale value received [currency], booked at the
        end of the month before it (sold servers leave at the start of the decision month).

    Notes
    -----
    A sold cohort is one that leaves before its useful life or the horizon ends it (0 < sold <
    min(bought + life, H)); proceeds[sold] = sum of count x resale_{sold-1}
    (:func:`models.cohort_costs.server_schedule`) [currency].
    """
    H = book.horizon
    out: dict[int, float] = {}
    for c in r.plan.servers:
        if type_id is not ALL and c.type != type_id:
            continue
        life = book.for_type(c.type).scenario.owned.useful_life_months
        if c.count and 0 < c.sold < min(c.bought + life, H):
            resale = float(c.count * server_schedule(book, c)["resale"][c.sold - 1, 0])
            out[c.sold] = out.get(c.sold, 0.0) + resale
    return out


def cash_by_period(labels, r: StrategyResult, book: PriceBook | None = None
                   ) -> dict[str, dict]:
    """Purchases and upfront payments of a strategy by quarter and by year, and by year with
    the proceeds of servers sold beside them.

    Parameters
    ----------
    labels : sequence of str
        Month labels ``'YYYY-MM'`` of the strategy's lines.
    r : StrategyResult
        Strategy priced (its ``capex``, ``commitment_upfront`` and ``resale_credit`` lines).
    book : PriceBook, optional
        Its prices: with server types, purchases are also given by type.

    Returns
    -------
    dict
        ``by_quarter`` ('YYYY-Qn') and ``by_year`` ('YYYY') to the purchases and upfront
        payments (the figure a capital budget is set against), periods with a payment only
        [currency]; ``by_year_detail``: 'YYYY' to ``purchases``, ``upfront_payments``,
        ``sale_proceeds`` (every server sold at its resale value: by the schedule, at the end
        of its useful life or of the horizon, in the month it is booked) and ``net``
        (purchases + upfront payments - sale proceeds), years with any of them [currency];
        with server types and a book, ``purchases_by_type``: 'YYYY' to type id to purchases
        [currency].

    Notes
    -----
    paid_m = capex_m + commitment_upfront_m; by_quarter[q] = sum_{m in q} paid_m and by_year[y] =
    sum_{m in y} paid_m over months with a payment; net_y = purchases_y + upfront_y -
    sale_proceeds_y (resale credits) [currency].
    """
    capex = np.asarray(r.lines["capex"])
    upfront = np.asarray(r.lines["commitment_upfront"])
    resale = np.asarray(r.lines["resale_credit"])
    by_quarter: dict[str, float] = {}
    by_year: dict[str, float] = {}
    detail: dict[str, dict[str, float]] = {}
    for month, bought, prepaid, sold in zip(labels, capex, upfront, resale):
        paid = bought + prepaid
        if paid:
            by_quarter[quarter(month)] = by_quarter.get(quarter(month), 0.0) + float(paid)
            by_year[month[:4]] = by_year.get(month[:4], 0.0) + float(paid)
        if paid or sold:
            year = detail.setdefault(month[:4], {"purchases": 0.0, "upfront_payments": 0.0,
                                                 "sale_proceeds": 0.0, "net": 0.0})
            year["purchases"] += float(bought)
            year["upfront_payments"] += float(prepaid)
            year["sale_proceeds"] += float(sold)
            year["net"] += float(paid - sold)
    out = {"by_quarter": by_quarter, "by_year": by_year, "by_year_detail": detail}
    if book is not None and r.servers_online_by_type is not None:
        by_type: dict[str, dict[str, float]] = {}
        for c in r.plan.servers:
            if c.count and 0 <= c.bought < len(labels):
                paid = c.count * float(server_schedule(book, c)["capex"][c.bought, 0])
                year = by_type.setdefault(labels[c.bought][:4], {})
                year[c.type] = year.get(c.type, 0.0) + paid
        out["purchases_by_type"] = by_type
    return out


def horizon_sale(book: PriceBook, r: StrategyResult, month: int, type_id=None
                 ) -> dict | None:
    """What the horizon rule makes of one purchase: its servers sold at the horizon's end.

    Parameters
    ----------
    book : PriceBook
        The prices the strategy was priced with (its scenario's horizon rule).
    r : StrategyResult
        A strategy priced with a schedule.
    month : int
        Month index of the purchase, 0-based [months].
    type_id : str, optional
        The server type bought (issue 26); None without server types.

    Returns
    -------
    dict or None
        Under ``liquidate``, when every server bought that month is still held at the
        horizon's end and sold then: ``held_months`` [months], per server ``price``,
        ``install`` and ``resale`` (the value received at the horizon's end) [currency],
        ``resale_fraction`` (resale / price) [fraction] and ``net`` (price + install -
        resale, undiscounted, before running costs) [currency]; else None.

    Notes
    -----
    .. math:: net = price + install - price \\, f(H - b)

    with :math:`f` the resale fraction at the age :math:`H - b` [months] of a server bought at
    month :math:`b` and sold at the end of the horizon's last month :math:`H - 1` (linear
    from 1 when new to the first year-end fraction, models/finance.py ``resale_fraction``).
    """
    if book.scenario.finance.horizon_end != "liquidate":
        return None
    cohorts = [c for c in r.plan.servers if c.bought == month and c.type == type_id]
    if not cohorts or any(c.sold != book.horizon for c in cohorts):
        return None
    c = cohorts[0]
    typed = book.for_type(c.type)
    lines = server_schedule(typed, c)
    terms = server_terms(typed, c)
    price, install = float(terms.price[0]), terms.install
    resale = float(lines["resale"][c.sold - 1, 0])
    return {"held_months": c.sold - c.bought, "price": price, "install": float(install),
            "resale": resale, "resale_fraction": resale / price if price else 0.0,
            "net": price + install - resale}


def purchase_orders(s: Scenario, decisions, labels, r: StrategyResult, book: PriceBook
                    ) -> list[dict]:
    """One order line per thing to buy, sell or sign, with what it costs or brings.

    Parameters
    ----------
    s : Scenario
        The scenario (its offers).
    decisions : iterable of models.scenario_schedule.Decision
        The schedule.
    labels : sequence of str
        Month labels ``'YYYY-MM'`` of the strategy's lines.
    r : StrategyResult
        The strategy priced with the schedule.
    book : PriceBook
        The prices it was priced with.

    Returns
    -------
    list of dict
        ``month``, ``action`` (buy, sell, sign), ``what`` (servers or an offer id),
        ``quantity`` [servers or GPUs], ``cash`` paid at the time (purchase or each signing's
        own upfront payment; 0 for a sale) [currency]; a sale adds ``proceeds``, the resale
        value received [currency], and ``proceeds_month``, the month it is booked (the one
        before the sale: the servers leave at its start); a signing adds ``term_months`` and
        ``payment``; with server types each purchase and sale is a line per type, with its
        ``type``. A purchase whose servers are all sold at the horizon's end under the
        ``liquidate`` rule adds ``horizon_sale`` (:func:`horizon_sale`).

    Notes
    -----
    A purchase's cash = capex_i (the month's purchases, per type: sum over the type's cohorts
    bought in month i of count x capex per server); a signing's cash = sum over its cohorts of
    gpus x upfront per GPU (:func:`models.cohort_costs.commitment_schedule`); a sale's proceeds from
    :func:`sale_proceeds` [currency].
    """
    index = {m: i for i, m in enumerate(labels)}
    proceeds = sale_proceeds(book, r)
    orders = []
    for d in decisions:
        i = index[d.month]
        if d.buy_servers:
            orders.append({"month": d.month, "action": "buy", "what": "servers",
                           "quantity": d.buy_servers,
                           "cash": float(r.lines["capex"][i])})
        if d.sell_servers:
            orders.append({"month": d.month, "action": "sell", "what": "servers",
                           "quantity": d.sell_servers, "cash": 0.0,
                           "proceeds": proceeds.get(i, 0.0),
                           "proceeds_month": labels[i - 1] if i > 0 else None})
        for type_id, n in d.buy.items():     # a fleet (issue 26): one line per type
            if n:
                paid = sum(c.count * float(server_schedule(book, c)["capex"][i, 0])
                           for c in r.plan.servers if c.type == type_id and c.bought == i)
                orders.append({"month": d.month, "action": "buy", "what": "servers",
                               "type": type_id, "quantity": n, "cash": paid})
        for type_id, n in d.sell.items():
            if n:
                orders.append({"month": d.month, "action": "sell", "what": "servers",
                               "type": type_id, "quantity": n, "cash": 0.0,
                               "proceeds": sale_proceeds(book, r, type_id).get(i, 0.0),
                               "proceeds_month": labels[i - 1] if i > 0 else None})
        for offer in s.commitments:
            gpus = d.commit.get(offer.id, 0)
            if gpus:
                orders.append({"month": d.month, "action": "sign", "what": offer.id,
                               "quantity": gpus, "term_months": offer.term_months,
                               "payment": offer.payment})
    for order in orders:
        if order["action"] == "buy":
            # a shorthand purchase (``buy_servers``) of a fleet buys its first type
            # (models.schedule_cohorts.schedule_plan), the type its cohorts carry
            sale = horizon_sale(book, r, index[order["month"]],
                                order.get("type") or default_type(s))
            if sale is not None:
                order["horizon_sale"] = sale
    # each signing's own upfront payment (two offers signed in one month pay apart)
    upfront: dict[tuple[str, str], float] = {}
    for c in r.plan.commitments:
        if 0 <= c.start < len(labels) and c.gpus:
            paid = float(c.gpus * commitment_schedule(book, c)["upfront"][c.start, 0])
            key = (labels[c.start], c.offer)
            upfront[key] = upfront.get(key, 0.0) + paid
    for order in orders:
        if order["action"] == "sign":
            order["cash"] = upfront.get((order["month"], order["what"]), 0.0)
    return orders


# Each wording a literal template, for the catalogs: one server now, n now, one in a quarter,
# n in a quarter.
