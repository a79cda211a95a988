"""A schedule as the reviewer reads it: decisions, purchase orders, cash and words (issue 14).

A schedule is a tuple of :class:`models.scenario.Decision`; what it costs comes from the
strategy the engine priced with it. Purchase orders list what to buy, sell or sign and when,
with the cash paid or, for a sale, the resale received; cash is the purchases and upfront
payments by quarter and by calendar year (the figures a capital budget is set against), and by
year with sale proceeds beside them and the net.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from models.costs import commitment_schedule, server_schedule
from models.messages import Message, Money, Months, Number
from models.prices import PriceBook
from models.scenario import Decision, Scenario
from models.strategies import StrategyResult


def schedule_json(decisions) -> list[dict[str, Any]]:
    """The schedule's JSON shape (the one ``proposed.schedule`` accepts).

    Parameters
    ----------
    decisions : iterable of models.scenario.Decision
        The schedule.

    Returns
    -------
    list of dict
        One entry per decision: ``month`` ('YYYY-MM'), ``buy_servers``, ``sell_servers``
        [servers], ``commit`` (offer id to GPUs, nonzero only), ``sell_from`` when given, and
        ``buy`` and ``sell`` per server type id when a decision has them.
    """
    out = []
    for d in decisions:
        entry: dict[str, Any] = {"month": d.month, "buy_servers": d.buy_servers,
                                 "sell_servers": d.sell_servers,
                                 "commit": {k: v for k, v in d.commit.items() if v}}
        if d.sell_from:
            entry["sell_from"] = dict(d.sell_from)
        for key in ("buy", "sell"):          # per server type (issue 26)
            if getattr(d, key):
                entry[key] = {k: v for k, v in getattr(d, key).items() if v}
        out.append(entry)
    return out


def quarter(month: str) -> str:
    """Calendar quarter of a month.

    Parameters
    ----------
    month : str
        ``'YYYY-MM'``.

    Returns
    -------
    str
        ``'YYYY-Qn'``.

    Examples
    --------
    >>> quarter("2027-05")
    '2027-Q2'
    """
    year, m = month.split("-")
    return f"{year}-Q{(int(m) - 1) // 3 + 1}"


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
    A sold cohort is one that leaves before its useful life or the horizon ends it.
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


def purchase_orders(s: Scenario, decisions, labels, r: StrategyResult, book: PriceBook
                    ) -> list[dict]:
    """One order line per thing to buy, sell or sign, with what it costs or brings.

    Parameters
    ----------
    s : Scenario
        The scenario (its offers).
    decisions : iterable of models.scenario.Decision
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
        ``type``.
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
SERVER_WORDS = {
    "buy": (Message("Buy 1 server now."), Message("Buy {n} servers now."),
            Message("Buy 1 server in {quarter}."), Message("Buy {n} servers in {quarter}.")),
    "sell": (Message("Sell 1 server now."), Message("Sell {n} servers now."),
             Message("Sell 1 server in {quarter}."), Message("Sell {n} servers in {quarter}.")),
}


# A fleet of server types (issue 26): the type named, and how long sold servers are kept.
TYPE_WORDS = {
    "buy": (Message("Buy {n} {type} servers now."),
            Message("Buy {n} {type} servers in {quarter}.")),
    "sell": (Message("Sell {n} {type} servers now."),
             Message("Keep {n} {type} servers until {last}, then sell them.")),
}


def type_words(action: str, n: int, type_id: str, now: bool, month: str) -> Message:
    """One purchase or sale of servers of a type as a sentence.

    Parameters
    ----------
    action : {"buy", "sell"}
        What is done with the servers.
    n : int
        Servers bought or sold [servers].
    type_id : str
        Their server type.
    now : bool
        Whether it is the plan's first month.
    month : str
        Month of the decision, ``'YYYY-MM'`` (sold servers leave at its start).

    Returns
    -------
    Message
        "Buy {n} {type} servers in {quarter}.", "Keep {n} {type} servers until {last}, then
        sell them." and so on.

    Examples
    --------
    >>> type_words("sell", 8, "h100", False, "2028-07").render()
    'Keep 8 h100 servers until 2028-06, then sell them.'
    """
    template = TYPE_WORDS[action][0 if now else 1]
    params: dict = {"n": Number(n), "type": type_id}
    if not now:
        params["quarter"] = quarter(month)
        params["last"] = str(np.datetime64(month, "M") - 1)
    return Message(template.template, params)


def server_words(action: str, n: int, now: bool, month: str) -> Message:
    """One purchase or sale of servers as a sentence.

    Parameters
    ----------
    action : {"buy", "sell"}
        What is done with the servers (a sale is priced at resale value by the engine, not
        here).
    n : int
        Servers bought or sold [servers].
    now : bool
        Whether it is the plan's first month (the sentence then says "now" instead of the
        quarter).
    month : str
        Month of the decision, ``'YYYY-MM'``.

    Returns
    -------
    Message
        "Buy 1 server now.", "Sell {n} servers in {quarter}." and so on.

    Examples
    --------
    >>> server_words("buy", 3, False, "2027-04").render()
    'Buy 3 servers in 2027-Q2.'
    """
    one_now, many_now, one_later, many_later = SERVER_WORDS[action]
    template = (one_now if n == 1 else many_now) if now else (one_later if n == 1 else many_later)
    params: dict = {} if n == 1 else {"n": Number(n)}
    if not now:
        params["quarter"] = quarter(month)
    return Message(template.template, params)


def schedule_words(s: Scenario, decisions, first_month: str) -> list[Message]:
    """The schedule in sentences, one per action in date order.

    Parameters
    ----------
    s : Scenario
        The scenario (offer terms).
    decisions : iterable of models.scenario.Decision
        The schedule, in date order (each decision's actions in the order buy, sell,
        sign).
    first_month : str
        The plan's first month, ``'YYYY-MM'``.

    Returns
    -------
    list of Message
        Servers to buy and sell by quarter, commitments to sign by month.
    """
    out: list[Message] = []
    terms = {o.id: o.term_months for o in s.commitments}
    for d in decisions:
        now = d.month == first_month
        if d.buy_servers:
            out.append(server_words("buy", d.buy_servers, now, d.month))
        if d.sell_servers:
            out.append(server_words("sell", d.sell_servers, now, d.month))
        for action, counts in (("buy", d.buy), ("sell", d.sell)):
            out += [type_words(action, n, k, now, d.month) for k, n in counts.items() if n]
        for offer_id, gpus in d.commit.items():
            if gpus:
                params = {"gpus": Number(gpus), "offer": offer_id,
                          "term": Months(terms.get(offer_id, 0))}
                out.append(Message("Sign {gpus} GPUs of {offer} ({term}) now.", params) if now
                           else Message("Sign {gpus} GPUs of {offer} ({term}) in {month}.",
                                        {**params, "month": d.month}))
    return out


def cash_words(cash: dict[str, dict[str, float]], currency: str) -> list[Message]:
    """The year in which cash for purchases and upfront payments peaks, as a sentence.

    Parameters
    ----------
    cash : dict
        :func:`cash_by_period` of the strategy [currency].
    currency : str
        ISO 4217 code of the reporting currency.

    Returns
    -------
    list of Message
        One sentence, or none when nothing is paid up front.
    """
    if not cash["by_year"]:
        return []
    peak_year = max(cash["by_year"], key=cash["by_year"].get)
    return [Message("Cash for purchases and upfront payments peaks at {amount} in {year}.",
                    {"amount": Money(cash["by_year"][peak_year], currency), "year": peak_year})]


def decisions_from_json(items) -> tuple[Decision, ...]:
    """A schedule from its JSON shape, validated.

    Parameters
    ----------
    items : iterable of dict
        Entries as :func:`schedule_json` writes them.

    Returns
    -------
    tuple of models.scenario.Decision
        The decisions.

    Raises
    ------
    pydantic.ValidationError
        An entry that is not a valid decision.
    """
    return tuple(Decision.model_validate(item) for item in items)
