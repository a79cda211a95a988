"""A schedule as the reviewer reads it: decisions, purchase orders, cash and words (issue 14).

A schedule is a tuple of :class:`models.scenario.Decision`; what it costs comes from the
strategy the engine priced with it. Purchase orders list what to buy or sign and when; cash is
the purchases and upfront payments by quarter and by calendar year (the figures a capital
budget is set against).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from models.costs import commitment_schedule
from models.messages import Message, Money, Months, Number
from models.prices import PriceBook
from models.scenario import Decision, Scenario
from models.strategies import StrategyResult


def schedule_json(decisions) -> list[dict[str, Any]]:
    """The schedule's JSON shape (the one ``proposed.schedule`` accepts)."""
    out = []
    for d in decisions:
        entry: dict[str, Any] = {"month": d.month, "buy_servers": d.buy_servers,
                                 "sell_servers": d.sell_servers,
                                 "commit": {k: v for k, v in d.commit.items() if v}}
        if d.sell_from:
            entry["sell_from"] = dict(d.sell_from)
        out.append(entry)
    return out


def quarter(month: str) -> str:
    year, m = month.split("-")
    return f"{year}-Q{(int(m) - 1) // 3 + 1}"


def cash_by_period(labels, r: StrategyResult) -> dict[str, dict[str, float]]:
    """Purchases and upfront payments of a strategy by quarter and by year [currency]."""
    paid = np.asarray(r.lines["capex"]) + np.asarray(r.lines["commitment_upfront"])
    by_quarter: dict[str, float] = {}
    by_year: dict[str, float] = {}
    for month, amount in zip(labels, paid):
        if amount:
            by_quarter[quarter(month)] = by_quarter.get(quarter(month), 0.0) + float(amount)
            by_year[month[:4]] = by_year.get(month[:4], 0.0) + float(amount)
    return {"by_quarter": by_quarter, "by_year": by_year}


def purchase_orders(s: Scenario, decisions, labels, r: StrategyResult, book: PriceBook
                    ) -> list[dict]:
    """One order line per thing to buy, sell or sign, with what it costs at the time."""
    index = {m: i for i, m in enumerate(labels)}
    orders = []
    for d in decisions:
        i = index[d.month]
        if d.buy_servers:
            orders.append({"month": d.month, "action": "buy", "what": "servers",
                           "quantity": d.buy_servers,
                           "cash": float(r.lines["capex"][i])})
        if d.sell_servers:
            orders.append({"month": d.month, "action": "sell", "what": "servers",
                           "quantity": d.sell_servers, "cash": 0.0})
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


def buy_words(n: int, now: bool, month: str) -> Message:
    """One purchase as a sentence (each wording a literal template, for the catalogs)."""
    q = {"quarter": quarter(month)}
    if now:
        return Message("Buy 1 server now.") if n == 1 else Message(
            "Buy {n} servers now.", {"n": Number(n)})
    return Message("Buy 1 server in {quarter}.", q) if n == 1 else Message(
        "Buy {n} servers in {quarter}.", {"n": Number(n), **q})


def sell_words(n: int, now: bool, month: str) -> Message:
    q = {"quarter": quarter(month)}
    if now:
        return Message("Sell 1 server now.") if n == 1 else Message(
            "Sell {n} servers now.", {"n": Number(n)})
    return Message("Sell 1 server in {quarter}.", q) if n == 1 else Message(
        "Sell {n} servers in {quarter}.", {"n": Number(n), **q})


def schedule_words(s: Scenario, decisions, first_month: str) -> list[Message]:
    """The schedule in sentences, one per action in date order: servers to buy and sell by
    quarter, commitments to sign by month."""
    out: list[Message] = []
    terms = {o.id: o.term_months for o in s.commitments}
    for d in decisions:
        now = d.month == first_month
        if d.buy_servers:
            out.append(buy_words(d.buy_servers, now, d.month))
        if d.sell_servers:
            out.append(sell_words(d.sell_servers, now, d.month))
        for offer_id, gpus in d.commit.items():
            if gpus:
                params = {"gpus": Number(gpus), "offer": offer_id,
                          "term": Months(terms.get(offer_id, 0))}
                out.append(Message("Sign {gpus} GPUs of {offer} ({term}) now.", params) if now
                           else Message("Sign {gpus} GPUs of {offer} ({term}) in {month}.",
                                        {**params, "month": d.month}))
    return out


def cash_words(cash: dict[str, dict[str, float]], currency: str) -> list[Message]:
    if not cash["by_year"]:
        return []
    peak_year = max(cash["by_year"], key=cash["by_year"].get)
    return [Message("Cash for purchases and upfront payments peaks at {amount} in {year}.",
                    {"amount": Money(cash["by_year"][peak_year], currency), "year": peak_year})]


def decisions_from_json(items) -> tuple[Decision, ...]:
    return tuple(Decision.model_validate(item) for item in items)
