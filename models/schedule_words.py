"""A schedule in words and in its JSON shape (issue 14): what a reader is told to buy, sell or
sign, and when; pure words, with no engine state (the workbook writer reads them: its import
contract is strict, issue 36).

models/schedules.py prices a schedule (purchase orders, cash); this module only says it.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from models.messages import Message, Money, Months, Number, Percent
from models.scenario import OWNED_TYPE, Scenario
from models.scenario_schedule import Decision


def schedule_json(decisions) -> list[dict[str, Any]]:
    """The schedule's JSON shape (the one ``proposed.schedule`` accepts).

    Parameters
    ----------
    decisions : iterable of models.scenario_schedule.Decision
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

    Notes
    -----
    Q = floor((m - 1) / 3) + 1 for month m = 1..12 of year y: written ``'YYYY-Qn'`` with n = Q.

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
        sell them." and so on; the type ``owned`` (the owned servers section of a scenario
        without server types) in :func:`server_words`' sentences, which name no type.

    Examples
    --------
    >>> type_words("sell", 8, "h100", False, "2028-07").render()
    'Keep 8 h100 servers until 2028-06, then sell them.'
    """
    if type_id == OWNED_TYPE:
        return server_words(action, n, now, month)
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
    decisions : iterable of models.scenario_schedule.Decision
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


def by_year(actions: list[tuple[str, int]]) -> str:
    """Counts summed by calendar year, for a grouped sentence.

    Parameters
    ----------
    actions : list of (str, int)
        Month ``'YYYY-MM'`` and count of each action, in date order.

    Returns
    -------
    str
        ``'YYYY: n'`` per year with an action, in year order, comma-separated (no words, so
        it reads the same in every language).

    Notes
    -----
    n_y = sum of the counts n of the actions in year y, written ``'y: n_y'`` in year order.

    Examples
    --------
    >>> by_year([("2027-01", 15), ("2027-04", 7), ("2031-10", 3)])
    '2027: 22, 2031: 3'
    """
    years: dict[str, int] = {}
    for month, n in actions:
        years[month[:4]] = years.get(month[:4], 0) + n
    return ", ".join(f"{y}: {n:,}" for y, n in sorted(years.items()))


# Several actions of one kind in one sentence (issue 39, item 5): the total, how many actions,
# the totals by year; the schedule's own list (the plan page's, the CLI's table) has each one.
GROUPED_WORDS = {
    "buy": Message("Buy {n} servers over {count} purchases (by year {years}); the schedule "
                   "lists each."),
    "sell": Message("Sell {n} servers over {count} sales (by year {years}); the schedule lists "
                    "each."),
    "buy_type": Message("Buy {n} {type} servers over {count} purchases (by year {years}); the "
                        "schedule lists each."),
    "sell_type": Message("Sell {n} {type} servers over {count} sales (by year {years}); the "
                         "schedule lists each."),
    "sign": Message("Sign {gpus} GPUs of {offer} ({term}) over {count} signings (by year "
                    "{years}); the schedule lists each."),
}


def grouped_schedule_words(s: Scenario, decisions, first_month: str) -> list[Message]:
    """The schedule in a few sentences: each kind of action once, grouped when it recurs.

    Parameters
    ----------
    s : Scenario
        The scenario (offer terms).
    decisions : iterable of models.scenario_schedule.Decision
        The schedule, in date order.
    first_month : str
        The plan's first month, ``'YYYY-MM'``.

    Returns
    -------
    list of Message
        Per kind (untyped purchases, sales, then per server type, then per offer signed): the
        sentence of :func:`schedule_words` when it happens once, else one sentence with the
        total, the number of actions and the totals by year; for a schedule of no decision,
        :func:`schedule_words`' sentence that nothing is bought, sold or signed.
    """
    decisions = list(decisions)
    if not decisions:
        return schedule_words(s, decisions, first_month)
    terms = {o.id: o.term_months for o in s.commitments}
    out: list[Message] = []

    def group(kind: str, actions: list[tuple[str, int]], single, **params) -> None:
        if len(actions) == 1:
            out.append(single(*actions[0]))
        elif actions:
            total = Number(sum(n for _, n in actions))
            out.append(Message(GROUPED_WORDS[kind].template,
                               {**params, ("gpus" if kind == "sign" else "n"): total,
                                "count": Number(len(actions)), "years": by_year(actions)}))

    for action in ("buy", "sell"):
        group(action, [(d.month, getattr(d, f"{action}_servers")) for d in decisions
                       if getattr(d, f"{action}_servers")],
              lambda m, n, a=action: server_words(a, n, m == first_month, m))
    for action in ("buy", "sell"):
        types = sorted({k for d in decisions for k, n in getattr(d, action).items() if n})
        for k in types:
            group(action if k == OWNED_TYPE else f"{action}_type",
                  [(d.month, getattr(d, action)[k]) for d in decisions
                   if getattr(d, action).get(k)],
                  lambda m, n, a=action, k=k: type_words(a, n, k, m == first_month, m),
                  type=k)
    offers = [o for o in dict.fromkeys(k for d in decisions for k, g in d.commit.items() if g)]
    for offer_id in offers:
        term = Months(terms.get(offer_id, 0))

        def signed(m: str, gpus: int, offer_id=offer_id, term=term) -> Message:
            params = {"gpus": Number(gpus), "offer": offer_id, "term": term}
            return (Message("Sign {gpus} GPUs of {offer} ({term}) now.", params)
                    if m == first_month else
                    Message("Sign {gpus} GPUs of {offer} ({term}) in {month}.",
                            {**params, "month": m}))
        group("sign", [(d.month, d.commit[offer_id]) for d in decisions
                       if d.commit.get(offer_id)], signed, offer=offer_id, term=term)
    return out


# A purchase the horizon rule sells again within its first year (issue 39, item 5): under
# ``liquidate`` every server is sold at its resale value at the horizon's end, and the resale
# curve starts at 100 % when new, so a purchase months before the end costs little net.
LATE_PURCHASE_MONTHS = 12


def horizon_sale_words(orders: list[dict], currency: str) -> list[Message]:
    """Why a purchase late in the horizon costs little: the horizon rule sells it again.

    Parameters
    ----------
    orders : list of dict
        The strategy's purchase orders (models/schedules.py ``purchase_orders``); a purchase
        sold at the horizon's end carries ``horizon_sale``.
    currency : str
        ISO 4217 code of the reporting currency.

    Returns
    -------
    list of Message
        One sentence per purchase held at most ``LATE_PURCHASE_MONTHS`` before the horizon's
        end sells it: when, how many, months held, and per server the price with install, the
        resale value and its share of the price, and the net [currency].
    """
    out = []
    for o in orders:
        sale = o.get("horizon_sale")
        if o["action"] != "buy" or not sale or sale["held_months"] > LATE_PURCHASE_MONTHS:
            continue
        params = {"month": o["month"], "held": Months(sale["held_months"]),
                  "share": Percent(sale["resale_fraction"], 1),
                  "paid": Money(sale["price"] + sale["install"], currency),
                  "resale": Money(sale["resale"], currency), "net": Money(sale["net"], currency)}
        if o["quantity"] == 1:
            out.append(Message(
                "The server bought in {month} is held {held} and sold at the horizon's end "
                "(horizon end rule: liquidate) at {share} of its price: it costs {paid} with "
                "its installation and brings back {resale}, so it adds {held} of capacity for "
                "{net} net before running costs.", params))
        else:
            out.append(Message(
                "The {n} servers bought in {month} are held {held} and sold at the horizon's "
                "end (horizon end rule: liquidate) at {share} of their price: each costs {paid} "
                "with its installation and brings back {resale}, so it adds {held} of capacity "
                "for {net} net before running costs.", {**params, "n": Number(o["quantity"])}))
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
    tuple of models.scenario_schedule.Decision
        The decisions.

    Raises
    ------
    pydantic.ValidationError
        An entry that is not a valid decision.
    """
    return tuple(Decision.model_validate(item) for item in items)
