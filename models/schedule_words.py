"""A schedule in words and in its JSON shape (issue 14): what a reader is told to buy, sell or
sign, and when; pure words, with no engine state (the workbook writer reads them: its import
contract is strict, issue 36).

models/schedules.py prices a schedule (purchase orders, cash); this module only says it.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from models.messages import Message, Money, Months, Number
from models.scenario import Decision, Scenario


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
        Servers to buy and sell by quarter, commitments to sign by month; for a schedule of
        no decision, that nothing is bought, sold or signed (and what is held is kept).
    """
    decisions = list(decisions)
    if not decisions:       # a proposal to keep only what is held (issue 37, item 5)
        held = s.position.servers or s.position.commitments
        if held:
            return [Message("Keep what is held; buy, sell and sign nothing.")]
        return [Message("Buy, sell and sign nothing.")]
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
